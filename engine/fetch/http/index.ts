/**
 * The HTTP fetch step of the fetch path: {@link HttpFetcher} turns a URL (plus validators from the
 * last visit) into a {@link FetchOutcome}, with politeness-sized connection pools, the address policy
 * of core/net against SSRF (with or without a proxy), a DNS cache, exact deadlines and a
 * decompression-aware body cap. It is used for pages
 * and robots.txt alike. Everything else in this folder is its machinery.
 */
export { HttpFetcher } from "./fetcher.ts";
export { proxyListens } from "./proxy-probe.ts";
export { gunzipStream, type DecodedStream } from "./body-stream.ts";
export type {
  FetchError,
  FetchErrorKind,
  FetchOutcome,
  FetchRequest,
  FetchResponse,
  HttpFetcherOptions,
  StreamedResponseHead,
  StreamOutcome,
} from "./types.ts";
export { DnsCache, type LookupFn, type ResolvedAddress } from "./dns-cache.ts";
export { serverKeyOf } from "./server-key.ts";
export { hostsFileLookup, HostsFileError, parseHostsFile } from "./hosts-file.ts";
