/**
 * Cost of the scope and filters on the admission path: `bun bench/scope.bench.ts`. Every link the frontier
 * admits passes `ScopeFilter.reject`, so its cost is per link. Rows:
 *
 *   registrable domain, cold    tldts `getDomain` on distinct hosts (the Public Suffix List lookup itself)
 *   registrable domain, memo    the same through DomainMemo, hosts repeating as links of a crawl do
 *   filter, --scope any         the defaults: depth and the extension deny-list
 *   filter, --scope domain      plus the roots (1,000 seeds' domains)
 *   filter, domain + patterns   plus 10 --deny-urls globs, 2 re: patterns and 5 --allow-hosts
 *
 * The corpus: 200,000 links over 20,000 hosts (names with and without `www.`, several public suffixes,
 * some private-section ones such as github.io), paths of one to four segments, a few with extensions.
 * Prints rows of `per CPU second (µs each)`.
 */
import { DEFAULT_POLICY } from "../core/config/index.ts";
import { DomainMemo, registrableDomain, ScopeFilter, ScopeRoots, type ScopeCandidate } from "../core/scope/index.ts";

const RUN_MS = 2_000;
const WARMUP_MS = 300;

function corpus(): { links: ScopeCandidate[]; hosts: string[] } {
  const tlds = ["com", "org", "net", "de", "co.uk", "com.au", "github.io", "io", "fr"];
  const words = ["news", "blog", "item", "about", "docs", "2024", "category", "search"];
  const exts = ["", "", "", "", "", "", ".html", ".pdf", ".zip", ".jpg"];
  const hosts: string[] = [];
  for (let i = 0; i < 20_000; i++) hosts.push(`${i % 3 === 0 ? "www." : i % 7 === 0 ? "blog." : ""}site${i}.${tlds[i % tlds.length]}`);
  const links: ScopeCandidate[] = [];
  for (let i = 0; i < 200_000; i++) {
    // Links cluster by host, as a page's links do: most go to a few hundred hosts.
    const host = hosts[i % 10 < 8 ? i % 500 : (i * 7919) % hosts.length]!;
    let path = "";
    for (let d = 0; d <= i % 4; d++) path += `/${words[(i + d) % words.length]}`;
    links.push({ url: `https://${host}${path}${exts[i % exts.length]}`, host, depth: 1 + (i % 6) });
  }
  return { links, hosts };
}

const { links, hosts } = corpus();
let sink = 0;

/** CPU seconds (user + system) of this process: other load on a shared box moves it far less than wall time. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function rate(label: string, each: (i: number) => unknown, n: number): void {
  const run = (ms: number): number => {
    let done = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      for (let i = 0; i < 1_000; i++) if (each(done + i)) sink++;
      done += 1_000;
    }
    return done;
  };
  run(WARMUP_MS);
  const started = cpu();
  const count = run(RUN_MS);
  const perSecond = count / (cpu() - started);
  console.log(
    `${label.padEnd(30)} ${Math.round(perSecond).toLocaleString("en").padStart(12)} /s  (${(1e6 / perSecond).toFixed(3)} µs each)`,
  );
  void n;
}

rate("registrable domain, cold", (i) => registrableDomain(hosts[i % hosts.length]!), hosts.length);
const memo = new DomainMemo();
rate("registrable domain, memo", (i) => memo.of(links[i % links.length]!.host), links.length);

const roots = new ScopeRoots();
roots.add(hosts.slice(0, 1_000));
const any = new ScopeFilter(DEFAULT_POLICY);
const domain = new ScopeFilter({ ...DEFAULT_POLICY, scope: "domain" }, roots);
const patterns = new ScopeFilter(
  {
    ...DEFAULT_POLICY,
    scope: "domain",
    denyUrls: [...Array.from({ length: 10 }, (_, i) => `*/private${i}/*`), "re:[?&]sessionid=", "re:/v[0-9]+/archive/"],
    allowHosts: ["com", "org", "net", "de", "uk"],
  },
  roots,
);
rate("filter, --scope any", (i) => any.reject(links[i % links.length]!), links.length);
rate("filter, --scope domain", (i) => domain.reject(links[i % links.length]!), links.length);
rate("filter, domain + patterns", (i) => patterns.reject(links[i % links.length]!), links.length);
console.log(`(${sink} rejected or computed)`);
