/**
 * Cost of the per-address board (core/politeness AddressBoard): `bun bench/address-board.bench.ts`. Every
 * pass the cap per address gives (one per request) is noted on it, and the heartbeat and the dashboard read
 * its busiest rows. Rows:
 *
 *   pass, 500 busy servers     the same few servers again and again (a crawl of a few shared hosts)
 *   pass, 1M distinct servers  every pass a new server: the board full (1,000 rows), each one evicting
 *   top(20)                    the busiest 20 of a full board (per heartbeat or page view)
 *
 * Prints rows of `per CPU second (µs each)` and the board's heap after the churn.
 */
import { AddressBoard } from "../core/politeness/index.ts";

const RUN_MS = 1_000;

const servers = Array.from({ length: 1_000_000 }, (_, i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

function rate(name: string, step: (i: number) => void): void {
  for (let i = 0; i < 10_000; i++) step(i);
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < RUN_MS) for (let k = 0; k < 1_000; k++) step(n++);
  const ms = performance.now() - started;
  console.log(
    `${name.padEnd(28)} ${Math.round((n / ms) * 1000).toLocaleString("en")} per second (${((ms * 1000) / n).toFixed(3)} µs each)`,
  );
}

const busy = new AddressBoard();
rate("pass, 500 busy servers", (i) => busy.passed(servers[i % 500]!, i % 3));
const churn = new AddressBoard();
rate("pass, 1M distinct servers", (i) => churn.passed(servers[i % servers.length]!, i % 3));
rate("top(20)", () => void churn.top(20));

// The heap of a full board: its 1,000 rows (their server strings made apart from the corpus).
Bun.gc(true);
const before = process.memoryUsage().heapUsed;
const full = new AddressBoard();
for (let i = 0; i < 1_000; i++) full.passed(`ip:192.0.${i >> 8}.${i & 255}`, 1);
Bun.gc(true);
console.log(`a full board: ${full.size} rows, ${((process.memoryUsage().heapUsed - before) / 1024).toFixed(0)} KiB of heap`);
