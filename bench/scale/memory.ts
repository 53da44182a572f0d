/**
 * What the scale bench reads of memory. `sample` forces a full collection first (Bun.gc), then reads the
 * process's RSS and peak RSS (/proc/self/status), the JS heap (`heapStats` of bun:jsc: live object bytes,
 * and "extra memory", the backing stores of typed arrays such as the Bloom filter's bits) and the counts of
 * the object types that hold a frontier's per-host state, and mimalloc's own statistics (which Bun adds to
 * heapStats): the bytes live through it (the JS heap's pages among them, SQLite's page cache, Bun's buffers)
 * and what it holds from the system.
 *
 * `internals` counts entries in the frontier's in-memory structures (FrontierState: the active hosts, the
 * waiting heap, the ready queues, the known home pages, the scope roots). The bench may reach internals,
 * but another engineer is reshaping them, so every read is optional: a structure that moved reads as
 * undefined instead of failing the run.
 *
 * `breakdown` is destructive and runs last: it lets go of one structure at a time (the cached queue heads,
 * the compiled robots.txt, the waiting heap, the ready queues, the host entries, the known home pages, the
 * scope roots), collects, and records how many bytes of JS heap and typed arrays (the Key53Sets' tables are
 * typed arrays, outside the JS heap's own count) each release freed. A string shared by two
 * structures is freed with the last of them, so the order is part of the answer (host names are freed with
 * the entries, after the heap and queues that also held them).
 */
import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import type { Frontier } from "../../engine/frontier/index.ts";

/** Object types whose counts say where the per-host bytes are (JSC's names). */
const TYPES = ["Object", "Map", "Set", "Array", "string", "Function", "Promise"];

export interface MemorySample {
  label: string;
  rssBytes: number;
  peakRssBytes: number;
  heapBytes: number;
  /** What the JS heap holds from the system (live objects and free space it keeps). */
  heapCapacityBytes: number;
  /**
   * Live bytes malloc'd through mimalloc, -1 when not reported. In Bun that includes the JS heap's own pages
   * (1M strings of 40 characters raise both by about 100 MB), SQLite's page cache and statements, and Bun's buffers.
   */
  nativeLiveBytes: number;
  /** The most bytes live through mimalloc so far (small and huge blocks' peaks added: an upper bound), -1 when not reported: with purging off, RSS stays near it. */
  nativePeakLiveBytes: number;
  /** What mimalloc holds from the system (live and kept free: MIMALLOC_PURGE_DELAY=-1 keeps it all); -1 when not reported. */
  nativeCommittedBytes: number;
  /** Outside the JS heap but owned by JS objects: typed arrays' backing stores (the Bloom filter). */
  extraBytes: number;
  objects: number;
  types: Record<string, number>;
}

export function sample(label: string): MemorySample {
  Bun.gc(true);
  const h = heapStats();
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  const types: Record<string, number> = {};
  for (const t of TYPES) types[t] = h.objectTypeCounts[t] ?? 0;
  // Bun adds mimalloc's statistics to heapStats (not in its types): read them defensively.
  const mi = (h as unknown as { mimalloc?: Record<string, { current?: number; peak?: number }> }).mimalloc;
  const current = (key: string) => mi?.[key]?.current;
  const live = (current("malloc_normal") ?? Number.NaN) + (current("malloc_huge") ?? 0);
  const peak = (mi?.malloc_normal?.peak ?? Number.NaN) + (mi?.malloc_huge?.peak ?? 0);
  return {
    label,
    rssBytes: kib("VmRSS"),
    peakRssBytes: kib("VmHWM"),
    heapBytes: h.heapSize,
    heapCapacityBytes: h.heapCapacity,
    nativeLiveBytes: Number.isFinite(live) ? live : -1,
    nativePeakLiveBytes: Number.isFinite(peak) ? peak : -1,
    nativeCommittedBytes: current("committed") ?? -1,
    extraBytes: h.extraMemorySize,
    objects: h.objectCount,
    types,
  };
}

/** The frontier's in-memory structures as this bench expects them (all optional: see the module comment). */
interface StateView {
  hosts?: Map<string, { key: string; partition: number; head?: unknown; robots?: unknown }>;
  waiting?: { size?: number; clear?: () => void };
  ready?: { size?: number; levels?: string[][]; heads?: number[]; members?: Set<string> };
  knownHomePages?: { size?: number; clear?: () => void };
  scope?: { roots?: { size?: number; hosts?: { clear(): void }; domains?: { clear(): void }; domainOf?: { memo?: Map<string, string> } } };
  queuedAt?: { size?: number };
}

function stateOf(frontier: Frontier): StateView | undefined {
  return (frontier as unknown as { state?: StateView }).state;
}

export interface Internals {
  activeHosts?: number;
  cachedHeads?: number;
  compiledRobots?: number;
  waitingHosts?: number;
  readyHosts?: number;
  knownHomePages?: number;
  scopeRoots?: number;
  seqClockCheckpoints?: number;
}

export function internals(frontier: Frontier): Internals {
  const s = stateOf(frontier);
  let heads = 0;
  let robots = 0;
  for (const entry of s?.hosts?.values() ?? []) {
    if (entry.head) heads++;
    if (entry.robots) robots++;
  }
  return {
    activeHosts: s?.hosts?.size,
    cachedHeads: s?.hosts ? heads : undefined,
    compiledRobots: s?.hosts ? robots : undefined,
    waitingHosts: s?.waiting?.size,
    readyHosts: s?.ready?.size,
    knownHomePages: s?.knownHomePages?.size,
    scopeRoots: s?.scope?.roots?.size,
    seqClockCheckpoints: s?.queuedAt?.size,
  };
}

export interface Release {
  structure: string;
  /** Entries it held when released. */
  entries: number;
  /** JS heap and typed-array bytes freed by releasing it (after the releases above it). */
  freedBytes: number;
  /** Object count freed. */
  freedObjects: number;
}

/**
 * Releases the frontier's per-host structures one at a time and measures what each freed. The frontier is
 * unusable afterwards. A structure the bench cannot find is skipped (listed with `entries` -1). First every
 * host's queue head is cached again with `readHead` (the store's `head`), as after the fill: a host whose
 * page was fetched holds none until its next turn, so after a dispatch few do.
 */
export function breakdown(frontier: Frontier, readHead: (partition: number, host: string) => unknown): Release[] {
  const s = stateOf(frontier);
  const out: Release[] = [];
  for (const e of s?.hosts?.values() ?? []) e.head ??= readHead(e.partition, e.key);
  let before = sample("breakdown");
  const release = (structure: string, entries: number | undefined, drop: () => void) => {
    if (entries === undefined) {
      out.push({ structure, entries: -1, freedBytes: 0, freedObjects: 0 });
      return;
    }
    drop();
    const after = sample(structure);
    const freed = before.heapBytes + before.extraBytes - (after.heapBytes + after.extraBytes);
    out.push({ structure, entries, freedBytes: freed, freedObjects: before.objects - after.objects });
    before = after;
  };
  const hosts = s?.hosts;
  const count = (key: "head" | "robots") => {
    if (!hosts) return undefined;
    let n = 0;
    for (const e of hosts.values()) if (e[key]) n++;
    return n;
  };
  release("cached queue heads (HostEntry.head)", count("head"), () => {
    for (const e of hosts!.values()) e.head = undefined;
  });
  release("compiled robots.txt (HostEntry.robots)", count("robots"), () => {
    for (const e of hosts!.values()) e.robots = undefined;
  });
  release("waiting heap (slots + host index)", s?.waiting?.clear ? s.waiting.size : undefined, () => s!.waiting!.clear!());
  const ready = s?.ready;
  release("ready queues", ready?.levels && ready.members ? ready.members.size : undefined, () => {
    for (const level of ready!.levels!) level.length = 0;
    ready!.members!.clear();
  });
  release("host entries (Map + HostEntry + HostState)", hosts?.size, () => hosts!.clear());
  release("known home pages (hashes of URLs)", s?.knownHomePages?.clear ? s.knownHomePages.size : undefined, () =>
    s!.knownHomePages!.clear!(),
  );
  const roots = s?.scope?.roots;
  release("scope roots (host and domain hashes, domain memo)", roots?.hosts && roots.domains ? roots.size : undefined, () => {
    roots!.hosts!.clear();
    roots!.domains!.clear();
    roots!.domainOf?.memo?.clear();
  });
  return out;
}
