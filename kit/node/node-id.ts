/**
 * Node ids, made one way for every role: `<role>[-<host>][-<random>]` in a-z, 0-9 and `-`, valid as a
 * NATS subject token and KV key (core/cluster checkToken). What each role puts in is its own choice: the
 * coordinator `coordinator-<host>` (a standby on another machine differs by host), a frontier node
 * `frontier-<host>-<6 random>` (saved in its data directory, so a restart keeps it), a fetch node
 * `fetch-<8 random>` (no host name: reading it needs Deno's --allow-sys, which the fetch node does without).
 */
import { checkToken } from "../../core/cluster/index.ts";

export interface NodeIdParts {
  /** The machine's host name; left out when undefined, `local` when nothing of it is usable. */
  readonly host?: string;
  /** How many random base-36 characters end the id (0: none). */
  readonly randomChars?: number;
  /** A number in [0, 1); default a cryptographic one. */
  readonly random?: () => number;
}

const MAX_HOST_CHARS = 40;

/** A new node id for `role` (`coordinator`, `frontier`, `fetch`). */
export function newNodeId(role: string, parts: NodeIdParts = {}): string {
  const pieces = [role];
  if (parts.host !== undefined) pieces.push(hostPart(parts.host));
  const chars = parts.randomChars ?? 0;
  if (chars > 0) {
    pieces.push(
      Math.floor((parts.random ?? cryptoRandom)() * 36 ** chars)
        .toString(36)
        .padStart(chars, "0"),
    );
  }
  return checkToken("node id", pieces.join("-"));
}

/** The host name as an id part: lower case, every run of other characters one `-`, at most 40 characters. */
function hostPart(host: string): string {
  const part = host
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_HOST_CHARS)
    .replace(/-+$/, "");
  return part || "local";
}

/** 53 random bits as a number in [0, 1); `crypto` needs no permission on Deno. */
function cryptoRandom(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high! * 2 ** 21 + (low! >>> 11)) / 2 ** 53;
}
