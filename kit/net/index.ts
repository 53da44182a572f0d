/** The network settings every fetching process reads alike: the proxy and address-safety rows, the proxy env fallback. */
export { ALLOW_PRIVATE_ADDRESSES_FIELD, PROXY_URL_FIELD, proxyFromEnv } from "./proxy-env.ts";
