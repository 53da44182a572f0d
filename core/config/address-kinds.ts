/**
 * The value kinds of the address-safety settings of the crawl policy: comma-separated lists of address
 * ranges (`10.0.0.0/8,fd00::/8`) and of host names (`corp.example.com,.internal.example`). Each entry is
 * checked with core/net's own parsers and kept in canonical text, so what the table holds is exactly what
 * the address policy will apply.
 */
import { parseCidr, parseHostSuffix } from "../net/index.ts";
import type { ValueKind } from "./field-kinds.ts";

function listKind(kind: string, canonical: (entry: string) => string): ValueKind<readonly string[]> {
  return {
    kind,
    parse: (raw) =>
      raw
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "")
        .map(canonical),
    format: (values) => values.join(","),
    check(values) {
      for (const value of values) {
        try {
          canonical(value);
        } catch (error) {
          return (error as Error).message;
        }
      }
      return undefined;
    },
  };
}

/** Address ranges: `10.0.0.0/8`, one address `192.0.2.7`, IPv6 `fd00::/8`. The empty list is allowed. */
export function cidrListKind(): ValueKind<readonly string[]> {
  return listKind("ranges", (entry) => parseCidr(entry).text);
}

/** Host names, each standing for itself and every name under it. The empty list is allowed. */
export function hostListKind(): ValueKind<readonly string[]> {
  return listKind("hosts", parseHostSuffix);
}
