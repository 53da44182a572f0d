/** The network settings every fetching process reads from its environment alike: the proxy fallback. */
export { PROXY_ENV_DEFAULT_TEXT, proxyFromEnv } from "./proxy-env.ts";
