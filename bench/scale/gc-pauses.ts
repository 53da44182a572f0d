/**
 * What JavaScriptCore's own collections cost a run: reads the log a Bun process writes to stderr with
 * `BUN_JSC_logGC=1` and prints, for full and young (eden) collections apart, how many there were, their
 * longest and median pause (the time the main thread was stopped: a collection marks concurrently, in
 * increments, and each increment's stop is logged as `p=`), and their whole cycles (concurrent time
 * included). Collections JSC started because the heap grew ("Requesting GC because...") are counted apart
 * from the others (`Bun.gc()` calls such as the scale bench's samples, Bun's idle timer).
 *
 *   BUN_JSC_logGC=1 bun bench/scale/scale.bench.ts --hosts 100000 2> gc.log; bun bench/scale/gc-pauses.ts gc.log
 */
import { readFileSync } from "node:fs";

interface Collection {
  full: boolean;
  /** Started by JSC because allocation passed its limit, not asked for. */
  byGrowth: boolean;
  /** The longest stop of the main thread in this collection, ms. */
  pauseMs: number;
  /** From start to end, concurrent marking included, ms. */
  cycleMs: number;
}

export function parseGcLog(text: string): Collection[] {
  const out: Collection[] = [];
  let requested = false;
  let current: Collection | undefined;
  for (const line of text.split("\n")) {
    if (line.includes("Requesting GC because")) requested = true;
    const start = / START M \d+kb => (\w+)Collection/.exec(line);
    if (start) {
      current = { full: start[1] === "Full", byGrowth: requested, pauseMs: 0, cycleMs: 0 };
      requested = false;
    }
    if (!current) continue;
    for (const m of line.matchAll(/ p=([0-9.]+)ms/g)) current.pauseMs = Math.max(current.pauseMs, Number(m[1]));
    const end = /cycle ([0-9.]+)ms END/.exec(line);
    if (end) {
      current.cycleMs = Number(end[1]);
      out.push(current);
      current = undefined;
    }
  }
  return out;
}

function summary(label: string, cs: readonly Collection[]): string {
  if (cs.length === 0) return `${label}: none`;
  const pauses = cs.map((c) => c.pauseMs).sort((a, b) => a - b);
  const cycles = cs.map((c) => c.cycleMs).sort((a, b) => a - b);
  const total = cycles.reduce((a, b) => a + b, 0);
  return (
    `${label}: ${cs.length}, pause max ${pauses.at(-1)!.toFixed(1)} ms (median ${pauses[pauses.length >> 1]!.toFixed(1)}),` +
    ` cycle max ${cycles.at(-1)!.toFixed(0)} ms, cycles ${(total / 1000).toFixed(2)} s in all`
  );
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: bun bench/scale/gc-pauses.ts FILE (a BUN_JSC_logGC=1 stderr)");
  const cs = parseGcLog(readFileSync(file, "utf8"));
  for (const byGrowth of [true, false]) {
    const who = byGrowth ? "started by heap growth" : "asked for (Bun.gc, timers)";
    console.log(
      summary(
        `full, ${who}`,
        cs.filter((c) => c.full && c.byGrowth === byGrowth),
      ),
    );
    console.log(
      summary(
        `eden, ${who}`,
        cs.filter((c) => !c.full && c.byGrowth === byGrowth),
      ),
    );
  }
}
