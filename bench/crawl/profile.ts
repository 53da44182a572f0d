/**
 * Where the crawler's CPU goes, by component: reads a V8-format `.cpuprofile` (what `bun --cpu-prof`
 * writes; `crawl.bench.ts --profile DIR` makes one of our crawler) and charges every sample to the
 * innermost frame on its stack that belongs to the project (its folder names the component), else to
 * the npm package it runs in, else to the runtime module or native function. So SQLite's native `run`
 * under `FrontierStore.tx` counts as "frontier store", and warcio under the WARC writer as "WARC".
 * Samples of callbacks the runtime calls with no JavaScript caller (stream pipes, socket events) have no
 * project frame and show under their own native name.
 *
 *   bun bench/crawl/profile.ts FILE.cpuprofile [--top 25] [--functions 3] [--equal]
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Project folders, most specific first, and what to call them. */
const COMPONENTS: Array<[string, string]> = [
  ["engine/frontier/store/", "frontier store (SQLite)"],
  ["core/ports/", "seen-set (Bloom)"],
  ["frontier-node/", "frontier logic"],
  ["engine/fetch/http/", "HTTP fetch"],
  ["engine/fetch/parse/", "parse (links, text)"],
  ["engine/fetch/warc/", "WARC write"],
  ["engine/fetch/pipeline/", "fetch pipeline"],
  ["core/content/", "content fingerprints (SimHash)"],
  ["core/traps/", "trap checks"],
  ["core/url/", "URL normalize"],
  ["core/seen/", "seen-set (Bloom)"],
  ["core/", "core (other)"],
  ["embedded/", "crawl loop"],
  ["tests/testweb/", "test web"],
];

export interface Share {
  component: string;
  ms: number;
  share: number;
  functions: Array<{ name: string; ms: number }>;
}

/**
 * `equal`: count every sample as the median interval instead of its own `timeDeltas` entry. Bun's
 * profiles have no idle samples, so a sample taken after the thread slept carries the sleep; for a
 * thread that waits (on I/O, timers) equal weights give its CPU, not its wall time.
 */
export function summarize(profile: CpuProfile, equal = false): { totalMs: number; shares: Share[] } {
  const sorted = [...profile.timeDeltas].sort((a, b) => a - b);
  const medianMs = (sorted[sorted.length >> 1] ?? 0) / 1000;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const labelCache = new Map<number, { component: string; detail?: string }>();
  /** The component a sample is charged to, and for SQLite samples which statement kind and caller. */
  const label = (leaf: number): { component: string; detail?: string } => {
    const cached = labelCache.get(leaf);
    if (cached) return cached;
    let pkg: string | undefined;
    let runtime: string | undefined;
    let sqlite: string | undefined;
    let found: string | undefined;
    let caller = "";
    for (let id: number | undefined = leaf; id !== undefined && !found; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      const url = frame.url;
      const at = url.indexOf("/node_modules/");
      if (at >= 0) {
        const rest = url.slice(at + 14).split("/");
        pkg ??= `${rest.slice(0, rest[0]!.startsWith("@") ? 2 : 1).join("/")} (npm)`;
      } else if (url.startsWith("file://")) {
        found = COMPONENTS.find(([dir]) => url.includes(`/${dir}`))?.[1] ?? "project (other)";
        caller = `${frame.functionName || "(anonymous)"} (${url.replace(/^.*\/main\//, "")}:${frame.lineNumber + 1})`;
      } else if (url === "bun:sqlite") sqlite = frame.functionName;
      else if (url.startsWith("node:") || url.startsWith("internal:") || url.startsWith("bun:")) runtime ??= `runtime: ${url}`;
    }
    const leafName = byId.get(leaf)!.callFrame.functionName || "(anonymous)";
    let out: { component: string; detail?: string };
    if (sqlite !== undefined && !pkg) {
      // bun:sqlite's `transaction` runs BEGIN/COMMIT through `#runNoArgs`; statements through `#run`/`get`.
      out = { component: `SQLite, from ${found ?? "runtime"}`, detail: `${sqlite} <- ${caller || "?"}` };
    } else if (found) out = { component: found };
    else if (pkg) out = { component: pkg };
    else if (runtime) out = { component: runtime };
    else if (leafName.startsWith("onPipe") || leafName.startsWith("onRS") || leafName.startsWith("onWS")) {
      out = { component: "WHATWG stream pipes (no JS caller)" };
    } else out = { component: `native: ${leafName}` };
    labelCache.set(leaf, out);
    return out;
  };
  const ms = new Map<string, number>();
  const fnMs = new Map<string, Map<string, number>>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    if (name === "(idle)" || name === "(root)") return;
    const dt = equal ? medianMs : (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const { component, detail } = label(id);
    totalMs += dt;
    ms.set(component, (ms.get(component) ?? 0) + dt);
    const where = node.callFrame.url
      ? `${node.callFrame.url.replace(/^.*\/(node_modules\/)?/, "")}:${node.callFrame.lineNumber + 1}`
      : "native";
    const fn = detail ?? `${name || "(anonymous)"} (${where})`;
    const fns = fnMs.get(component) ?? new Map<string, number>();
    fns.set(fn, (fns.get(fn) ?? 0) + dt);
    fnMs.set(component, fns);
  });
  const shares = [...ms]
    .sort((a, b) => b[1] - a[1])
    .map(([component, t]) => ({
      component,
      ms: t,
      share: t / totalMs,
      functions: [...(fnMs.get(component) ?? [])].sort((a, b) => b[1] - a[1]).map(([name, t2]) => ({ name, ms: t2 })),
    }));
  return { totalMs, shares };
}

export function formatSummary(s: { totalMs: number; shares: Share[] }, top = 25, functions = 3): string {
  const lines = [`CPU profile: ${(s.totalMs / 1000).toFixed(1)} s of samples (self time, charged to the innermost project frame)`];
  for (const sh of s.shares.slice(0, top)) {
    lines.push(`${(sh.share * 100).toFixed(1).padStart(5)}%  ${(sh.ms / 1000).toFixed(2).padStart(6)} s  ${sh.component}`);
    for (const f of sh.functions.slice(0, functions)) lines.push(`                   ${(f.ms / 1000).toFixed(2).padStart(6)} s  ${f.name}`);
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const file = argv.find((a) => !a.startsWith("--"));
  if (!file) {
    process.stderr.write("usage: bun bench/crawl/profile.ts FILE.cpuprofile [--top N] [--functions N] [--equal]\n");
    process.exit(2);
  }
  const opt = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  process.stdout.write(formatSummary(summarize(profile, argv.includes("--equal")), opt("--top", 25), opt("--functions", 3)));
}
