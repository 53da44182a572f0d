/**
 * The network settings every fetching process reads alike: the proxy row and the proxy env fallback. (The
 * address-safety switch is a row of the crawl policy, core/config, which every role reads.)
 */
export { PROXY_URL_FIELD, proxyFromEnv } from "./proxy-env.ts";
export { unusedPort } from "./unused-port.ts";
