/**
 * Benchmark of core/robots: how many URL checks per second one compiled policy answers with a realistic
 * robots.txt (about 30 rules, wildcards and anchors included, a named group and a `*` group), and how
 * fast a 500 KiB file parses. Plain script: `bun bench/robots.bench.ts`. The target is 500k checks/s on
 * one core; the figure is the best of several rounds, since other work shares the cores.
 */
import { parseRobots, policyFor } from "../core/robots/index.ts";

const REALISTIC = `# robots.txt for www.shop.example
User-agent: *
Disallow: /cgi-bin/
Disallow: /admin/
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Disallow: /search
Allow: /search/about
Disallow: /*?sessionid=
Disallow: /*?sort=
Disallow: /*&sort=
Disallow: /*.json$
Disallow: /*.xml$
Allow: /sitemap*.xml$
Disallow: /tmp/
Disallow: /print/
Disallow: /*/print$
Disallow: /api/
Allow: /api/public/
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /*/reviews/*/edit
Disallow: /compare?
Disallow: /%7Estaff/
Disallow: /products/*/variants/*?color=
Disallow: /en/private/
Disallow: /fr/privé/
Disallow: /login
Disallow: /*/feed/
Allow: /*.css$
Allow: /*.js$
Crawl-delay: 1

User-agent: BadBot
Disallow: /

Sitemap: https://www.shop.example/sitemap.xml
`;

const PATHS = [
  "/",
  "/products/shoes/running-shoe-42",
  "/products/shoes/running-shoe-42?color=red&size=9",
  "/products/shoes/variants/7?color=blue",
  "/category/outdoor?page=3&sort=price",
  "/category/outdoor?page=3",
  "/search?q=boots",
  "/search/about",
  "/cart",
  "/blog/2024/05/how-to-choose-boots",
  "/blog/2024/05/how-to-choose-boots/print",
  "/api/public/stock.json",
  "/api/internal/orders",
  "/sitemap-products.xml",
  "/feeds/products.xml",
  "/wp-admin/admin-ajax.php",
  "/~staff/list",
  "/en/about-us",
  "/static/img/logo.png",
  "/products/boots/reviews/123/edit",
];

const AGENT = "MyCrawler/1.0 (+https://crawler.example/info)";

function best(rounds: number, run: () => number): number {
  let top = 0;
  for (let r = 0; r < rounds; r++) top = Math.max(top, run());
  return top;
}

function benchChecks(): number {
  const policy = policyFor(parseRobots(REALISTIC), AGENT);
  const n = 1_000_000;
  let allowed = 0;
  for (let i = 0; i < 200_000; i++) if (policy.isAllowed(PATHS[i % PATHS.length] as string)) allowed++;
  const rate = best(5, () => {
    const started = performance.now();
    for (let i = 0; i < n; i++) if (policy.isAllowed(PATHS[i % PATHS.length] as string)) allowed++;
    return n / ((performance.now() - started) / 1000);
  });
  if (allowed === 0) throw new Error("benchmark sanity: nothing was allowed");
  return rate;
}

function benchCompile(): number {
  const rules = parseRobots(REALISTIC);
  const n = 20_000;
  return best(3, () => {
    const started = performance.now();
    for (let i = 0; i < n; i++) policyFor(rules, "MyCrawler/1.0");
    return n / ((performance.now() - started) / 1000);
  });
}

function bigFile(): string {
  let text = "User-agent: *\n";
  for (let i = 0; text.length < 500 * 1024; i++) {
    text += i % 7 === 0 ? `Disallow: /section-${i}/*/item-*.html$\n` : `Disallow: /section-${i}/page?id=${i}\n`;
    if (i % 50 === 0) text += `# block ${i}\nUser-agent: bot-${i}\nAllow: /open-${i}/\n`;
  }
  return text;
}

function benchParse(text: string): { msPerFile: number; mbPerSec: number } {
  const bytes = new TextEncoder().encode(text);
  parseRobots(bytes);
  const rounds = 10;
  const ms =
    1 /
    best(3, () => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) parseRobots(bytes);
      return rounds / (performance.now() - started);
    });
  return { msPerFile: ms, mbPerSec: bytes.length / 1024 / 1024 / (ms / 1000) };
}

const ruleCount = parseRobots(REALISTIC).groups.find((g) => g.agents.includes("*"))?.rules.length ?? 0;
const checks = benchChecks();
console.log(
  `robots: ${Math.round(checks).toLocaleString("en-US")} checks/s (one compiled policy, ${ruleCount} rules, ${PATHS.length} paths)`,
);
console.log(`robots: ${Math.round(benchCompile()).toLocaleString("en-US")} policies compiled/s`);
const big = bigFile();
const parse = benchParse(big);
console.log(`robots: parse ${(big.length / 1024).toFixed(0)} KiB in ${parse.msPerFile.toFixed(2)} ms (${parse.mbPerSec.toFixed(0)} MiB/s)`);
