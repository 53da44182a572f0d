/**
 * The benchmark's output: a small table for people and one JSON line for machines (last line of stdout).
 */
import type { CrawlResult, Scenario } from "./run.ts";

export const TARGET_PAGES_PER_SECOND = 1000;
/** Other work using more than this share of one core during a window makes its figures floors. */
const BUSY_BOX_SHARE = 0.2;

export function table(scenario: Scenario, results: readonly CrawlResult[]): string {
  const head = ["crawler", "pages/s", "pages", "unique", "robots", "CPU s", "CPU ms/page", "peak RSS MB", "violations"];
  const rows = results.map((r) => [
    r.name,
    r.pagesPerSecond.toFixed(1),
    String(r.pages),
    String(r.uniquePages),
    String(r.robotsRequests),
    r.cpuSeconds.toFixed(1),
    r.cpuMsPerPage.toFixed(2),
    (r.peakRssBytes / 2 ** 20).toFixed(0),
    `${r.violations}${r.ownPolicyViolations !== undefined ? ` (own rule: ${r.ownPolicyViolations})` : ""}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const out = [
    `crawl benchmark: ${scenario.hosts} hosts, ${Math.round(scenario.pageBytes / 1000)} KB pages, ${scenario.linksPerPage} links/page, ` +
      `${scenario.pagesPerHost} pages/host, ${scenario.minGapMs / 1000} s per-host gap, ${scenario.seconds} s window`,
    line(head),
    ...rows.map(line),
  ];
  const [ours, peer] = results;
  if (ours && peer && peer.pagesPerSecond > 0) {
    out.push(
      `ratio ${ours.name} / ${peer.name}: ${(ours.pagesPerSecond / peer.pagesPerSecond).toFixed(1)}x pages/s, ` +
        `${(peer.cpuMsPerPage / Math.max(ours.cpuMsPerPage, 1e-9)).toFixed(1)}x less CPU per page`,
    );
  }
  for (const r of results) {
    const kinds = Object.entries(r.violationsByKind).map(([k, n]) => `${k} ${n}`);
    const extra = [
      `startup ${r.startupSeconds.toFixed(1)} s`,
      `stop ${r.stopSeconds.toFixed(1)} s${r.exitCode === null ? " (killed)" : ""}`,
      `wrote ${(r.writtenBytes / 2 ** 20).toFixed(0)} MB`,
      `test web CPU ${r.testWebCpuSeconds.toFixed(1)} s`,
      `other load on the box ${r.otherLoadCpuSeconds.toFixed(1)} CPU s`,
      `other responses ${r.otherResponses}`,
    ];
    out.push(`  ${r.name}: ${extra.join(", ")}${kinds.length ? `; violations: ${kinds.join(", ")}` : ""}`);
    for (const ex of r.violationExamples) out.push(`    e.g. ${ex}`);
    if (r.otherLoadCpuSeconds > BUSY_BOX_SHARE * r.seconds) {
      out.push(`    warning: other processes used ${r.otherLoadCpuSeconds.toFixed(0)} CPU s during this ${r.seconds} s window; its pages/s is a floor`);
    }
  }
  return `${out.join("\n")}\n`;
}

export function jsonLine(scenario: Scenario, results: readonly CrawlResult[]): string {
  const [ours, peer] = results;
  return `${JSON.stringify({
    bench: "crawl",
    scenario,
    target: {
      pagesPerSecond: TARGET_PAGES_PER_SECOND,
      met: ours !== undefined && ours.pagesPerSecond >= TARGET_PAGES_PER_SECOND && ours.violations === 0,
    },
    ratio: ours && peer && peer.pagesPerSecond > 0 ? Number((ours.pagesPerSecond / peer.pagesPerSecond).toFixed(2)) : null,
    results: results.map(({ logFile: _log, violationExamples: _ex, ...r }) => ({
      ...r,
      pagesPerSecond: Number(r.pagesPerSecond.toFixed(1)),
      cpuSeconds: Number(r.cpuSeconds.toFixed(2)),
      cpuMsPerPage: Number(r.cpuMsPerPage.toFixed(3)),
      testWebCpuSeconds: Number(r.testWebCpuSeconds.toFixed(2)),
      otherLoadCpuSeconds: Number(r.otherLoadCpuSeconds.toFixed(2)),
      startupSeconds: Number(r.startupSeconds.toFixed(2)),
      stopSeconds: Number(r.stopSeconds.toFixed(2)),
    })),
  })}\n`;
}
