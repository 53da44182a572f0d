/**
 * The scale bench's output: for each size a table of the figures issue 25 asks for (admission, dispatch,
 * memory, disk) with their targets, then where the bytes go (the per-host structures released one by one,
 * the store's tables), and one JSON line for machines (the last line of stdout). Each figure's line says
 * whether it is measured or estimated.
 */
import type { MemorySample } from "./memory.ts";
import type { SizeResult } from "./run-size.ts";

/** Issue 25: links admitted per second, seen check included. */
export const TARGET_ADMIT_LINKS_PER_SECOND = 100_000;
/** Issue 25: tasks handed out and their results applied per second, once the queue is big. */
export const TARGET_DISPATCH_TASKS_PER_SECOND = 20_000;

const MB = 2 ** 20;

/** The figures of one size, derived from its raw result. */
export function figures(r: SizeResult) {
  const hosts = r.seed.hosts;
  const mem = (label: string): MemorySample => {
    const m = r.memory.find((x) => x.label === label);
    if (!m) throw new Error(`no memory sample "${label}"`);
    return m;
  };
  const start = mem("start");
  const built = mem("frontier built");
  const seeded = mem("seeded");
  const filled = mem("filled");
  const dispatched = mem("dispatched");
  const t = r.dispatch.tasks;
  const tasks = t.robots + t.sitemap + t.page + t.other;
  const dispatchSeconds = r.dispatch.next.seconds + r.dispatch.complete.seconds;
  const per = (n: number, d: number) => (d > 0 ? n / d : 0);
  const fillUrls = r.queuedAfterFill - r.queuedAfterSeed;
  return {
    hosts,
    queued: r.queuedAfterFill,
    seedsPerSecond: per(hosts, r.seed.timing.seconds),
    admitLinksPerSecond: per(r.admit.links, r.admit.timing.seconds),
    admitCpuUsPerLink: per(1e6 * r.admit.timing.cpuSeconds, r.admit.links),
    admitNewPerSecond: per(r.admit.added, r.admit.timing.seconds),
    admitNewShare: per(r.admit.added, r.admit.links),
    dispatchTasksPerSecond: per(tasks, dispatchSeconds),
    dispatchCpuUsPerTask: per(1e6 * (r.dispatch.next.cpuSeconds + r.dispatch.complete.cpuSeconds), tasks),
    dispatchTasks: tasks,
    robotsPerSecond: per(t.robots, r.dispatch.secondsByKind.robots),
    sitemapPerSecond: per(t.sitemap, r.dispatch.secondsByKind.sitemap),
    pagesPerSecond: per(t.page, r.dispatch.secondsByKind.page),
    nextTasksUsPerTask: per(1e6 * r.dispatch.next.seconds, tasks),
    completeUsPerResult: per(1e6 * r.dispatch.complete.seconds, tasks),
    rssBytesPerHost: per(filled.rssBytes - start.rssBytes, hosts),
    rssBytesPerUrl: per(filled.rssBytes - start.rssBytes, r.queuedAfterFill),
    heapBytesPerHost: per(filled.heapBytes - built.heapBytes, hosts),
    heapBytesPerHostSeeded: per(seeded.heapBytes - built.heapBytes, hosts),
    heapBytesPerFillUrl: per(filled.heapBytes - seeded.heapBytes, fillUrls),
    heapBytesPerHostDispatched: per(dispatched.heapBytes - built.heapBytes, hosts),
    bloomBytes: r.diskAtEnd.bloomBytes,
    diskBytesPerUrl: per(r.diskAfterFill.sqliteBytes + r.diskAfterFill.walBytes, r.queuedAfterFill),
    peakRssBytes: dispatched.peakRssBytes,
    samples: { start, built, seeded, filled, dispatched },
  };
}

function row(cells: Array<[string, string, string]>): string[] {
  const w0 = cells.reduce((w, c) => Math.max(w, c[0].length), 0);
  const w1 = cells.reduce((w, c) => Math.max(w, c[1].length), 0);
  return cells.map(([a, b, c]) => `  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
}

/** Items per CPU second from CPU µs per item. */
const per1 = (us: number) => (us > 0 ? 1e6 / us : 0);
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const mb = (x: number) => `${(x / MB).toFixed(0)} MB`;
const met = (ok: boolean) => (ok ? "met" : "NOT met");

export function table(r: SizeResult): string {
  const f = figures(r);
  const o = r.options;
  const { start, built, seeded, filled, dispatched } = f.samples;
  const d = r.dispatch;
  const stopped = (b: boolean) => (b ? " (stopped by --max-seconds)" : "");
  const lines = [
    `scale: ${int(f.hosts)} hosts, ${int(r.queuedAfterFill)} URLs queued (target ${int(o.queued)}), ${o.links} links a page ` +
      `(${Math.round(o.links * o.cross)} to other hosts, ${o.fresh} new), ${o.batch} per call` +
      (o.dated > 0 ? `, ${Math.round(o.dated * 100)} % dated paths` : "") +
      (o.bareResults ? ", page results carry no links" : "") +
      (o.maxQueued > 0 ? `, --max-queued ${int(o.maxQueued)}` : ""),
    ...row([
      ["seed", `${int(f.seedsPerSecond)} seeds/s`, `${r.seed.timing.seconds.toFixed(1)} s in addSeeds${stopped(r.seed.stoppedByTime)}`],
      [
        "admit",
        `${int(f.admitLinksPerSecond)} links/s`,
        `target >= ${int(TARGET_ADMIT_LINKS_PER_SECOND)}: ${met(f.admitLinksPerSecond >= TARGET_ADMIT_LINKS_PER_SECOND)}; ` +
          `${int(r.admit.links)} links of ${int(r.admit.pages)} pages, ${(100 * f.admitNewShare).toFixed(0)} % new ` +
          `(${int(f.admitNewPerSecond)} new URLs/s), ${r.admit.timing.seconds.toFixed(1)} s in admit, ` +
          `CPU ${f.admitCpuUsPerLink.toFixed(2)} µs/link (${int(per1(f.admitCpuUsPerLink))} links per CPU s), ` +
          `slowest call ${r.admit.timing.maxCallMs.toFixed(0)} ms${stopped(r.admit.stoppedByTime)}`,
      ],
      [
        "dispatch",
        `${int(f.dispatchTasksPerSecond)} tasks/s`,
        `target >= ${int(TARGET_DISPATCH_TASKS_PER_SECOND)}: ${met(f.dispatchTasksPerSecond >= TARGET_DISPATCH_TASKS_PER_SECOND)}; ` +
          `CPU ${f.dispatchCpuUsPerTask.toFixed(1)} µs/task (${int(per1(f.dispatchCpuUsPerTask))} per CPU s); ` +
          `${int(f.dispatchTasks)} tasks (robots ${int(d.tasks.robots)}, sitemap ${int(d.tasks.sitemap)}, page ${int(d.tasks.page)}), ` +
          `nextTasks ${f.nextTasksUsPerTask.toFixed(1)} µs/task (slowest call ${d.next.maxCallMs.toFixed(0)} ms, call ${d.next.maxCallAt} of ${d.next.calls}), ` +
          `completeMany ${f.completeUsPerResult.toFixed(1)} µs/result (slowest ${d.complete.maxCallMs.toFixed(0)} ms, call ${d.complete.maxCallAt} of ${d.complete.calls})${stopped(d.stoppedByTime)}`,
      ],
      [
        "  by kind",
        `${int(f.pagesPerSecond)} pages/s`,
        `robots.txt ${int(f.robotsPerSecond)}/s, sitemap probes ${int(f.sitemapPerSecond)}/s; pages carried ${int(d.tasks.links)} links, ` +
          `${int(d.added)} new; ${d.clockJumps} clock jumps, ${d.virtualSeconds.toFixed(0)} s of frontier time`,
      ],
      [
        "RSS",
        `${int(f.rssBytesPerHost)} B/host`,
        `${mb(filled.rssBytes)} after the fill (${mb(start.rssBytes)} at start), ${int(f.rssBytesPerUrl)} B per queued URL; ` +
          `${mb(dispatched.rssBytes)} after dispatch, peak ${mb(f.peakRssBytes)}`,
      ],
      [
        "JS heap",
        `${int(f.heapBytesPerHost)} B/host`,
        `${mb(filled.heapBytes)} after the fill (${mb(built.heapBytes)} before seeding); seeding ${int(f.heapBytesPerHostSeeded)} B/host, ` +
          `the fill ${f.heapBytesPerFillUrl.toFixed(1)} B per URL added, after dispatch ${int(f.heapBytesPerHostDispatched)} B/host`,
      ],
      [
        "outside heap",
        mb(filled.extraBytes),
        `extra memory (typed arrays: the Bloom filter's bits among them); after the fill the JS heap holds ${mb(filled.heapCapacityBytes)} from the system ` +
          `for its ${mb(filled.heapBytes)} of live objects; mimalloc, which holds the JS heap's pages too, SQLite's page cache ` +
          `(128 MiB unless --cache-mib) and Bun's buffers, ${mb(filled.nativeLiveBytes)} live and ${mb(filled.nativeCommittedBytes)} held ` +
          `(after dispatch ${mb(dispatched.nativeLiveBytes)} and ${mb(dispatched.nativeCommittedBytes)})`,
      ],
      ["RSS by where", `${int(filled.rssBytes / f.hosts)} B/host`, rssByWhere(filled, r.sqliteCacheBytes, f.hosts)],
      [
        "disk",
        `${f.diskBytesPerUrl.toFixed(0)} B/URL`,
        `frontier.sqlite ${mb(r.diskAfterFill.sqliteBytes)} + wal ${mb(r.diskAfterFill.walBytes)} after the fill; ` +
          `at the end ${mb(r.diskAtEnd.sqliteBytes)} + ${mb(r.diskAtEnd.walBytes)}`,
      ],
      [
        "seen.bloom",
        mb(f.bloomBytes),
        `${(f.bloomBytes / Math.max(1, r.seenCount)).toFixed(2)} B per URL seen (${int(r.seenCount)}), est. false positives ` +
          `${(100 * r.seenFalsePositiveRate).toFixed(2)} %`,
      ],
      [
        "checkpoints",
        `${r.checkpoints.calls}`,
        `seen-set snapshots, ${r.checkpoints.seconds.toFixed(1)} s (not in the rates above), slowest ${r.checkpoints.maxCallMs.toFixed(0)} ms`,
      ],
    ]),
    `  memory by phase (after a full GC): ${r.memory.map(phase).join("; ")}`,
    ...(r.collections && r.collections.calls > 0
      ? [
          `  collections   ${r.collections.calls} asked by --gc-every, ${r.collections.seconds.toFixed(1)} s (CPU ${r.collections.cpuSeconds.toFixed(1)} s), slowest ${r.collections.maxCallMs.toFixed(0)} ms (not in the rates above)`,
        ]
      : []),
    `  counters: ${COUNTERS.map((c) => `${c} ${int(r.counters[c] ?? 0)}`).join(", ")}`,
    `  store per URL (closed, dbstat): a queued URL ${perRow(r, ["queue", "queue_drop_order"])} B (queue row + drop-order index entry), ` +
      `a fetched URL ${perRow(r, ["urls"])} B (state and refetch time) + ${perRow(r, ["urls_due", "scheduled", "scheduled_due"])} B (refetch index; the schedule's table before schema 11), ` +
      `a host ${perRow(r, ["hosts"])} B (politeness state) + ${perRow(r, ["robots"])} B (robots.txt)`,
    `  in memory (entries counted in the frontier's structures after the fill): ${describe(r.internals.filled ?? {})}`,
    "  JS heap and typed arrays freed by releasing each per-host structure after dispatch (measured; in this order):",
    ...row(
      r.releases.map((x) =>
        x.entries < 0
          ? [x.structure, "not found", ""]
          : [
              x.structure,
              `${int(x.freedBytes / Math.max(1, f.hosts))} B/host`,
              `${int(x.entries)} entries, ${int(x.freedBytes / Math.max(1, x.entries))} B each, ${int(x.freedObjects)} objects`,
            ],
      ),
    ),
    `  store after close (${mb(r.diskLayout.tables.reduce((s, t) => s + t.bytes, 0) + r.diskLayout.freeBytes)}, ${mb(r.diskLayout.freeBytes)} free pages; dbstat):`,
    ...row(
      r.diskLayout.tables
        .filter((t) => t.bytes >= 64 * 1024)
        .map((t) => [t.name, mb(t.bytes), `${int(t.rows)} rows, ${(t.bytes / Math.max(1, t.rows)).toFixed(0)} B each`]),
    ),
    `  object counts after the fill: ${Object.entries(filled.types)
      .map(([k, v]) => `${k} ${int(v)} (${int(v - seeded.types[k]!)} since seeding, ${int(seeded.types[k]! - built.types[k]!)} by seeding)`)
      .join(", ")}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** Counters worth seeing next to the rates: what the seen check did, what screening refused. */
const COUNTERS = [
  "frontier.admitted",
  "seen.skipped",
  "seen.bloom-false-positive-caught",
  "frontier.dropped-size-limit",
  "admission.rejected.depth",
  "frontier.tasks.page",
];

/**
 * The RSS after the fill split by what holds it, each in B/host (of the whole RSS, so the process's own start
 * is in the last part): the JS heap's live objects and the rest of what it holds, SQLite's page cache (its
 * size after dispatch, measured by freeing it), typed arrays (the Bloom filter's bits, the Key53Sets), the
 * other bytes live through mimalloc (Bun's buffers, SQLite's statements and schema), and what is resident
 * but not live in mimalloc: freed pages the allocator keeps (MIMALLOC_PURGE_DELAY), the binary, JIT code
 * and stacks. mimalloc holds the JS heap's pages and, it seems, typed arrays' backing stores, so those are
 * taken out of its live bytes; a part that comes out below zero is shown as it is.
 */
function rssByWhere(m: MemorySample, cacheBytes: number, hosts: number): string {
  if (m.nativeLiveBytes < 0) return "mimalloc's statistics not reported";
  const b = (n: number) => `${int(n / hosts)}`;
  const cache = Math.max(0, cacheBytes);
  const otherLive = m.nativeLiveBytes - m.heapCapacityBytes - m.extraBytes - cache;
  return (
    `JS heap ${b(m.heapBytes)} live + ${b(m.heapCapacityBytes - m.heapBytes)} free, SQLite page cache ${b(cache)} ` +
    `(${mb(cache)} after dispatch), typed arrays ${b(m.extraBytes)}, other live in mimalloc ${b(otherLive)}, ` +
    `resident but not live in mimalloc ${b(m.rssBytes - m.nativeLiveBytes)} (kept free pages, code, stacks; ${mb(m.rssBytes - m.nativeLiveBytes)})`
  );
}

/** One memory sample in words. mimalloc's live bytes include the JS heap's own pages, so they are not added to it. */
function phase(m: MemorySample): string {
  return (
    `${m.label}: RSS ${mb(m.rssBytes)}, heap ${mb(m.heapBytes)} live of ${mb(m.heapCapacityBytes)}, typed arrays ${mb(m.extraBytes)}, ` +
    `mimalloc ${mb(m.nativeLiveBytes)} live (peak so far ${mb(m.nativePeakLiveBytes)}) of ${mb(m.nativeCommittedBytes)}`
  );
}

/** Bytes per row of the named tables and indexes together (rows counted on the first). */
function perRow(r: SizeResult, names: readonly string[]): string {
  const tables = r.diskLayout.tables.filter((t) => names.includes(t.name));
  // Rows counted in the first of the names the store has (a table, or the index standing for it).
  const first = names.map((n) => tables.find((t) => t.name === n)).find((t) => t !== undefined);
  if (!first || first.rows === 0) return "?";
  return (tables.reduce((s, t) => s + t.bytes, 0) / first.rows).toFixed(0);
}

function describe(i: object): string {
  return Object.entries(i as Record<string, number | undefined>)
    .map(([k, v]) => `${k} ${v === undefined ? "?" : int(v)}`)
    .join(", ");
}

/** The machine line: the headline figures of every size. */
export function jsonLine(results: readonly SizeResult[]): string {
  return JSON.stringify({
    bench: "scale",
    sizes: results.map((r) => {
      const f = figures(r);
      return {
        hosts: f.hosts,
        queued: f.queued,
        seedsPerSecond: Math.round(f.seedsPerSecond),
        admitLinksPerSecond: Math.round(f.admitLinksPerSecond),
        admitNewPerSecond: Math.round(f.admitNewPerSecond),
        admitCpuUsPerLink: Number(f.admitCpuUsPerLink.toFixed(3)),
        dispatchTasksPerSecond: Math.round(f.dispatchTasksPerSecond),
        dispatchPagesPerSecond: Math.round(f.pagesPerSecond),
        dispatchCpuUsPerTask: Number(f.dispatchCpuUsPerTask.toFixed(2)),
        dispatchTasks: f.dispatchTasks,
        rssBytesPerHost: Math.round(f.rssBytesPerHost),
        heapBytesPerHost: Math.round(f.heapBytesPerHost),
        heapBytesPerFillUrl: Number(f.heapBytesPerFillUrl.toFixed(2)),
        diskBytesPerUrl: Math.round(f.diskBytesPerUrl),
        bloomBytes: f.bloomBytes,
        peakRssBytes: f.peakRssBytes,
        releases: Object.fromEntries(r.releases.map((x) => [x.structure, Math.round(x.freedBytes / Math.max(1, f.hosts))])),
      };
    }),
  });
}
