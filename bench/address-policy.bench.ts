/**
 * Cost of the address policy on the admission path: `bun bench/address-policy.bench.ts`. Every link the
 * frontier admits is judged by `AddressPolicy.checkHost` on its host key before anything else, so its
 * cost is per link. The corpus imitates what links carry: ordinary names (with and without ports), a few
 * IP literals, a few local names; the policy has a deny list of ten ranges and ten host names, as an
 * operator might configure. The corpus has 20,000 distinct hosts, more than the policy's verdict cache
 * holds (4,096), so this measures the judging itself; links of one site hit the cache. Prints
 * `address policy: N hosts/s (µs per host)`.
 */
import { AddressPolicy } from "../core/net/index.ts";

const RUN_MS = 3_000;
const WARMUP_MS = 500;

function corpus(): string[] {
  const hosts: string[] = [];
  const tlds = ["com", "org", "net", "de", "co.uk", "io"];
  for (let i = 0; i < 20_000; i++) {
    const r = i % 100;
    if (r < 85) hosts.push(`${i % 3 === 0 ? "www." : ""}site${i}.${tlds[i % tlds.length]}`);
    else if (r < 92) hosts.push(`shop${i}.example.${tlds[i % tlds.length]}:8080`);
    else if (r < 96) hosts.push(`93.184.${i % 256}.${(i * 7) % 256}`);
    else if (r < 98) hosts.push(`[2606:4700::${(i % 65535).toString(16)}]`);
    else hosts.push(i % 2 ? "printer.local" : "10.0.0.1");
  }
  return hosts;
}

const policy = new AddressPolicy({
  deny: Array.from({ length: 10 }, (_, i) => `203.0.${i}.0/24`),
  denyHosts: Array.from({ length: 10 }, (_, i) => `corp${i}.example.com`),
});
const hosts = corpus();
let sink = 0;
const run = (ms: number): number => {
  let n = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 1_000; i++) if (policy.checkHost(hosts[(n + i) % hosts.length]!)) sink++;
    n += 1_000;
  }
  return n;
};
run(WARMUP_MS);
const started = performance.now();
const checked = run(RUN_MS);
const seconds = (performance.now() - started) / 1000;
const rate = checked / seconds;
console.log(`address policy: ${Math.round(rate).toLocaleString("en")} hosts/s (${(1e6 / rate).toFixed(2)} µs per host; ${sink} refused)`);
