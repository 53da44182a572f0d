/**
 * The network settings of every process that fetches, written once: the `--proxy` row of their tables,
 * and the proxy a process falls back to when it is given none (`--proxy` / CRAWL_PROXY): the conventional
 * environment variables, read one way for every process that fetches. HTTP_PROXY is taken before
 * HTTPS_PROXY (the crawler has one route for both schemes: http targets in absolute form, https through
 * CONNECT), each in capitals before lower case. NO_PROXY=`*` turns the fallback off; a NO_PROXY list of
 * hosts does not, since every crawled host goes the same way (give `--proxy` to decide explicitly).
 */
import { urlKind, type Env, type FieldSpec } from "../../core/config/index.ts";

const PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"] as const;

/** The proxy URL the environment names, or undefined for none. Empty variables count as unset. */
export function proxyFromEnv(env: Env): string | undefined {
  const noProxy = (env["NO_PROXY"] ?? env["no_proxy"] ?? "").trim();
  if (noProxy === "*") return undefined;
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The `proxyUrl` row of a fetching process's table; undefined: `proxyFromEnv`. */
export const PROXY_URL_FIELD: FieldSpec<string | undefined> = {
  default: undefined,
  defaultText: "HTTP_PROXY / HTTPS_PROXY (unless NO_PROXY=*), else none",
  env: "CRAWL_PROXY",
  flag: "--proxy",
  description: "HTTP forward proxy for every request",
  ...urlKind(["http", "https"]),
};
