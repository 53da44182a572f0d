/**
 * What the key gate (engine/frontier/key-gate.ts) costs in memory with `--politeness-key domain`: bytes per
 * key held (a key with a fetch in flight and nothing parked), bytes per parked host, and what the key gate
 * holds with the host key (nothing). Heap measured after a full collection, over 100,000 keys.
 *
 *   bun bench/key-gate.bench.ts [--keys N] [--parked N]
 */
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { FrontierState } from "../engine/frontier/frontier-state.ts";
import type { HostEntry } from "../engine/frontier/host-entry.ts";
import { KeyGate } from "../engine/frontier/key-gate.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}
const KEYS = arg("--keys", 100_000);
const PARKED = arg("--parked", 4);

function heap(): number {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

/**
 * A frontier state with what the gate reads: the policy, the hosts in flight, the clock. The waiting heap
 * takes no note: a host with work has its slot there whatever the key (waiting or ready), so it is not the gate's.
 */
function fakeState(mode: "host" | "domain") {
  const hosts = new Map<string, HostEntry>();
  const waiting = { push() {} };
  const s = { policy: { ...DEFAULT_POLICY, politenessKey: mode }, hosts, waiting, now: () => 1_000 };
  return { s: s as unknown as FrontierState, hosts };
}

function entry(key: string): HostEntry {
  return { key, partition: 0, state: { nextAllowedAt: 5_000, crawlDelayMs: 0 }, queued: 1, sitemaps: 0 } as unknown as HostEntry;
}

function measure(mode: "host" | "domain", parked: number): { perKey: number; gateSize: number } {
  const { s, hosts } = fakeState(mode);
  const gate = new KeyGate(s);
  // Host names made before the first reading: they are the crawl's, not the gate's.
  const holders = Array.from({ length: KEYS }, (_, k) => entry(`www.site${k}.example`));
  const others = Array.from({ length: KEYS * parked }, (_, i) => entry(`h${i % parked}.site${Math.floor(i / parked)}.example`));
  for (const e of [...holders, ...others]) hosts.set(e.key, e);
  for (const e of holders) gate.keys.of(e.key);
  for (const e of others) gate.keys.of(e.key);
  for (const e of holders) (e as { inFlight?: object }).inFlight = {};
  const before = heap();
  for (const e of holders) {
    gate.mayStart(e, 1_000);
    gate.started(e);
  }
  for (const e of others) gate.mayStart(e, 1_000);
  const after = heap();
  return { perKey: (after - before) / KEYS, gateSize: gate.size };
}

const rows = [
  { mode: "host", parked: 0, ...measure("host", 0) },
  { mode: "domain", parked: 0, ...measure("domain", 0) },
  { mode: "domain", parked: PARKED, ...measure("domain", PARKED) },
];
for (const r of rows)
  console.log(`${r.mode.padEnd(7)} parked/key ${r.parked}  keys held ${r.gateSize}  bytes per key ${r.perKey.toFixed(0)}`);
const perParked = (rows[2]!.perKey - rows[1]!.perKey) / PARKED;
console.log(`bytes per parked host ${perParked.toFixed(0)} (its slot in the key's parked set)`);
console.log(JSON.stringify({ keys: KEYS, hostKeyBytes: rows[0]!.perKey, domainKeyBytes: rows[1]!.perKey, parkedHostBytes: perParked }));
