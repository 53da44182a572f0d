/**
 * Every end-to-end crawl is judged for politeness, whatever else its test checks: the harnesses note the
 * gap rule each crawl was told (its `--min-gap` and `--gap-fetch-multiplier`, else the policy defaults),
 * and after the test they run the test web's strict checker (no tolerance, robots.txt counted as a
 * request) over the web's whole log, shutdown included, and fail the test on any violation. A web crawled
 * by several runs with different rules is judged by the loosest of them.
 *
 * The judge is the test web's log, and it is only as exact as the test process's clock readings. The end
 * of a response is read just before the call that writes it (a reading after the write is late whenever
 * the write hands the CPU to the client: see tests/testweb/recorder.ts); a test process kept off the CPU
 * before its handler runs logs an arrival late (a gap longer). So the processes under test start with a lower CPU
 * priority (`BELOW_THE_JUDGE`): when the crawler and the test web both want a core, the test web gets it.
 * This cannot hide impoliteness: on an idle core the crawler runs as before, and whatever delays it can
 * only make its gaps longer (it reads the end of a response, receives a result or dispatches a task later).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_POLICY, parseDecimal, parseDuration } from "../../core/config/index.ts";
import type { TestWeb } from "../testweb/index.ts";
import { minOf } from "../../core/stats/index.ts";

/**
 * Set `E2E_KEEP=1` to look into a failure afterwards: the harnesses leave their temp dirs (the nodes' logs
 * and data, a crawl's output) in place and say where, and a politeness verdict that fails writes the test
 * web's whole request log there too. It changes nothing a test checks.
 */
export const KEEP_FOR_DEBUGGING = process.env.E2E_KEEP === "1";

/** Under E2E_KEEP, notes a temp dir left in place (on stderr, where bun test shows it). */
export function keptDir(what: string, dir: string): void {
  console.error(`E2E_KEEP: ${what} kept in ${dir}`);
}

/** The command prefix that starts a process under test below the test process's CPU priority. */
export const BELOW_THE_JUDGE = ["nice", "-n", "10"] as const;

/** The part of the policy the checker needs: gap >= max(minGapMs, gapMultiplier x fetch time). */
export interface GapPolicy {
  minGapMs: number;
  gapMultiplier: number;
}

/** The gap rule a role was started with, read from its flags (`--flag value` or `--flag=value`). */
export function gapPolicyOf(args: readonly string[]): GapPolicy {
  const flag = (name: string): string | undefined => {
    let value: string | undefined;
    args.forEach((a, i) => {
      if (a === name) value = args[i + 1];
      else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
    });
    return value;
  };
  const minGap = flag("--min-gap");
  const multiplier = flag("--gap-fetch-multiplier");
  return {
    minGapMs: minGap === undefined ? DEFAULT_POLICY.minGapMs : parseDuration(minGap),
    gapMultiplier: multiplier === undefined ? DEFAULT_POLICY.gapFetchMultiplier : parseDecimal(multiplier),
  };
}

/**
 * Throws, listing every violation, when `web`'s log breaks the loosest of `policies`; does nothing when
 * no crawl was pointed at it.
 */
export function assertPolite(web: TestWeb, policies: readonly GapPolicy[]): void {
  if (policies.length === 0) return;
  const policy = {
    minGapMs: minOf(policies.map((p) => p.minGapMs)),
    gapMultiplier: minOf(policies.map((p) => p.gapMultiplier)),
  };
  const found = web.violations(policy);
  if (found.length === 0) return;
  const shown = found.slice(0, 20).map((v) => `  ${v.message}`);
  if (KEEP_FOR_DEBUGGING) {
    const file = join(mkdtempSync(join(tmpdir(), "e2e-impolite-")), "requests.json");
    writeFileSync(file, JSON.stringify(web.requests, null, 1));
    keptDir("the request log of an impolite crawl", file);
  }
  throw new Error(
    `the crawl was impolite (${found.length} violation(s) of min gap ${policy.minGapMs} ms, multiplier ${policy.gapMultiplier}, ` +
      `in ${web.requests.length} requests):\n${shown.join("\n")}${found.length > shown.length ? "\n  ..." : ""}`,
  );
}
