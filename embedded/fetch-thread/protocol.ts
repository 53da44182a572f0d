/**
 * The messages between the crawl loop's thread and the fetch threads. A fetch thread runs the fetch path
 * (HTTP, parse, fingerprints, WARC) so its CPU cost lands on another core, while the main thread keeps the
 * frontier with its SQLite store and the one content index all fetch threads share: a thread asks the main
 * thread for content-index claims, answered in kind. Everything travels in batches: tasks one message per
 * loop turn, claims one message per turn of the fetch thread, outputs one message per few milliseconds,
 * answers one message per batch of claims, since each message has a fixed cost on both sides. A page's links travel packed (links.ts
 * below): cloning thirty small objects per page cost more than the rest of the message.
 */
import type { DiscoveredUrl, FetchTask } from "../../core/model/index.ts";
import type { FetchPathOptions } from "../../engine/fetch/index.ts";
import type { RenderPolicy } from "../../engine/render/index.ts";
import type { WorkOutput } from "../../core/ports/index.ts";

/**
 * What a fetch thread builds its fetch path from: the fetch path's own options, less the content index,
 * which stays in the main thread (shared by all threads), and with the render policy in place of the
 * renderer (each thread that renders runs its own pool). The WARC prefix must differ per thread.
 */
export type FetchThreadInit = Omit<FetchPathOptions, "content" | "renderer" | "addressGate"> & {
  render?: RenderPolicy;
  /** Whether the main thread holds an AddressGate the thread asks (the gate itself cannot cross threads). */
  addressGate: boolean;
};

/** A fetch thread asking the main thread's AddressGate for a pass of `key` (thread-address-gate.ts). */
export interface GateAsk {
  id: number;
  key: string;
  waitMs: number;
}

/** A content-index claim asked by a fetch thread. */
export interface Claim {
  id: number;
  kind: "exact" | "near";
  key: string;
  url: string;
}

export type ToThread =
  | { type: "init"; init: FetchThreadInit }
  | { type: "tasks"; tasks: FetchTask[] }
  | { type: "abort" }
  | { type: "close" }
  | { type: "claimed"; answers: Array<{ id: number; owner?: string }> }
  /** Answers to gate asks: `waitedMs` with a pass, absent when none came within the wait. */
  | { type: "passes"; answers: Array<{ id: number; waitedMs?: number }> };

/** A task's output as it crosses threads: the links packed. */
export interface PackedOutput {
  taskId: string;
  result: WorkOutput["result"];
  links: PackedLinks;
}

export type FromThread =
  | { type: "ready" }
  /** Finished outputs (gathered over a few milliseconds) and content-index claims (of one turn); either may be empty. */
  | { type: "done"; outputs: PackedOutput[]; claims: Claim[] }
  | { type: "failed"; taskId: string; message: string; aborted: boolean }
  /** Passes asked of the main thread's AddressGate, passes whose request reached its server, and passes given back (by id). */
  | { type: "gate"; asks: GateAsk[]; arrivals: number[]; leaves: number[] }
  | { type: "closed" }
  | { type: "fatal"; message: string };

/**
 * A page's links as one message carries them. The usual case (every link found on one page: same depth,
 * same source, no redirect hops, no seed) is two newline-joined strings and the shared fields once, with a
 * string of one letter per link (m media, p page, - none) when any link has a kind (--fetch-media); anything
 * else (seeds, sitemap references and entries, mixed depths...) goes as the plain array. Normalized URLs
 * and host keys never contain a newline, and a list where one does is sent plain.
 */
export type PackedLinks =
  | {
      shared: { depth: number; sourceUrl?: string; redirectHops: number; foundOnNearDuplicate?: boolean };
      urls: string;
      hosts: string;
      kinds?: string;
    }
  | { plain: DiscoveredUrl[] };

/** What a packed list carries once, equal on every link of it. */
const SHARED_FIELDS = ["depth", "sourceUrl", "redirectHops", "foundOnNearDuplicate"] as const;
/**
 * Every field a packed list can carry; a link with any other (a seed's flag, a sitemap's fields, or one
 * added to DiscoveredUrl later) makes its list go plain, so no field is ever lost on the way.
 */
const PACKABLE = new Set<string>(["url", "host", "kind", ...SHARED_FIELDS]);

export function packLinks(links: readonly DiscoveredUrl[]): PackedLinks {
  const first = links[0];
  if (first === undefined) return { plain: [] };
  const urls: string[] = [];
  const hosts: string[] = [];
  let kinds = "";
  let anyKind = false;
  for (const l of links) {
    if (!packable(l, first)) return { plain: [...links] };
    urls.push(l.url);
    hosts.push(l.host);
    if (l.kind !== undefined) anyKind = true;
    kinds += l.kind === "media" ? "m" : l.kind === "page" ? "p" : "-";
  }
  const shared: Extract<PackedLinks, { shared: unknown }>["shared"] = { depth: first.depth, redirectHops: first.redirectHops };
  if (first.sourceUrl !== undefined) shared.sourceUrl = first.sourceUrl;
  if (first.foundOnNearDuplicate !== undefined) shared.foundOnNearDuplicate = first.foundOnNearDuplicate;
  return { shared, urls: urls.join("\n"), hosts: hosts.join("\n"), ...(anyKind ? { kinds } : {}) };
}

/** Whether `l` fits a packed list that `first` opens: only packable fields, the shared ones equal, no newline. */
function packable(l: DiscoveredUrl, first: DiscoveredUrl): boolean {
  for (const key in l) if (!PACKABLE.has(key)) return false;
  for (const key of SHARED_FIELDS) if (l[key] !== first[key]) return false;
  return !l.url.includes("\n") && !l.host.includes("\n");
}

export function unpackLinks(packed: PackedLinks): DiscoveredUrl[] {
  if ("plain" in packed) return packed.plain;
  const urls = packed.urls.split("\n");
  const hosts = packed.hosts.split("\n");
  const { kinds } = packed;
  const out = new Array<DiscoveredUrl>(urls.length);
  for (let i = 0; i < urls.length; i++) {
    const link: DiscoveredUrl = { url: urls[i]!, host: hosts[i]!, ...packed.shared };
    const kind = kinds?.[i];
    if (kind === "m") link.kind = "media";
    else if (kind === "p") link.kind = "page";
    out[i] = link;
  }
  return out;
}
