/**
 * The value kinds of settings the cluster roles share (see core/config/field-kinds.ts): node ids and
 * regions, listen addresses and NATS server lists, each with the checks and messages every role reports
 * them with, and the rows all three share whole (the JetStream replica count). They make the rows of the
 * coordinator's, frontier node's and fetch node's tables.
 */
import { between, integerKind, stringKind, type FieldSpec, type ValueKind } from "../config/index.ts";
import { parseHostPort } from "../net/index.ts";
import { checkToken } from "./names.ts";

/** A region or node id (a-z, 0-9, -); `optional` also accepts the empty string (derive one at start). */
export function tokenKind(what: "region" | "node id", { optional = false } = {}): ValueKind<string> {
  return stringKind(what === "region" ? "region" : "id", (value) => {
    if (optional && value === "") return undefined;
    try {
      checkToken(what, value);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  });
}

/** A listen address `host:port` (`[::1]:80` for IPv6; port 0 picks a free one); `optional` also accepts "" (none). */
export function listenKind({ optional = false } = {}): ValueKind<string> {
  return stringKind("host:port", (value) => {
    if (optional && value === "") return undefined;
    return parseHostPort(value) ? undefined : `must be host:port (port 0 picks a free one), got "${value}"`;
  });
}

/** NATS servers, comma-separated: `nats://`, `tls://`, `ws(s)://` URLs or bare `host:port`. */
export function natsUrlsKind(): ValueKind<readonly string[]> {
  return {
    kind: "urls",
    parse: (raw) =>
      raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    format: (value) => value.join(","),
    check: (value) =>
      value.length === 0
        ? "must name at least one server"
        : value.find((url) => !/^(nats|tls|wss?):\/\/[^\s]+$|^[^\s:/]+:\d+$/.test(url))
          ? "must be nats://host:port URLs"
          : undefined,
  };
}

/**
 * Copies JetStream keeps of every stream, of the cluster-state bucket and of the frontier nodes'
 * replicated partition state (its stream and object store): 1 on a single nats-server, 3 on a region's
 * 3-server cluster (the fleet). The same on every role of a region: whichever starts first
 * creates the streams, and a later one with another count changes them in place.
 */
export const NATS_REPLICAS_FIELD: FieldSpec<number> = {
  default: 1,
  env: "CRAWL_NATS_REPLICAS",
  flag: "--nats-replicas",
  description:
    "Copies JetStream keeps of each stream, of the cluster-state bucket and of the replicated partition state (its stream and object store): 1 on a single nats-server, 3 on a region's 3-server cluster (then losing one server loses nothing)",
  ...integerKind(between(1, 5)),
};
