/**
 * Fetching a host's robots.txt (RFC 9309 section 2.3): follow up to five redirects, then map the chain of
 * statuses to a verdict with core/robots (2xx parse, 4xx allow all, 5xx or unreachable disallow all). Each
 * hop is a request to a host like any other, so a hop to the same host waits the host's gap first; the
 * task carries that gap because only the frontier knows the host's politeness state. Each hop is judged by
 * the address policy like any URL, so a robots.txt that redirects to an internal address is never
 * followed there: that hop counts as unreachable (nothing of the host is fetched while it stands).
 */
import { ROBOTS_MAX_REDIRECTS, robotsVerdict, type RobotsFetchStep } from "../../../core/robots/index.ts";
import type { FetchTask } from "../../../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import type { FetchOutcome } from "../http/index.ts";
import { decodeBody } from "../parse/index.ts";
import { resultFor } from "./result-base.ts";
import { noteStored, storeExchange } from "./store-step.ts";
import type { StoredRecords, WorkOutput } from "../../../core/ports/index.ts";
import type { WorkerDeps } from "./types.ts";

export async function runRobotsTask(deps: WorkerDeps, task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
  const chain: RobotsFetchStep[] = [];
  const visited = new Set<string>();
  let url = task.url;
  let outcome: FetchOutcome | undefined;
  let first: FetchOutcome | undefined;
  /** The hop before the current one: the last request made when the current one is refused. */
  let asked: FetchOutcome | undefined;
  let bytes = 0;
  /** Where the first hop's record lies: the capture of the task's URL (later hops are other URLs). */
  let stored: StoredRecords | void = undefined;
  for (let hop = 0; hop <= ROBOTS_MAX_REDIRECTS; hop++) {
    if (hop > 0 && hostKeyOf(url) === task.host && outcome) {
      const byDuration = Math.ceil(deps.gap.multiplier * (outcome.endedAt - outcome.startedAt)) + deps.gap.marginMs;
      await deps.sleep(Math.max(task.hostGapMs, byDuration), signal);
    }
    visited.add(url);
    asked = outcome;
    outcome = await deps.fetcher.fetch({ url, signal });
    first ??= outcome;
    if (outcome.kind === "error") {
      chain.push("unreachable");
      break;
    }
    chain.push(outcome.status);
    const hopStored = await storeExchange(deps.store, outcome);
    if (hop === 0) stored = hopStored;
    bytes += outcome.body.byteLength;
    if (outcome.status < 300 || outcome.status >= 400 || outcome.status === 304) break;
    const location = outcome.headers["location"];
    const next = location ? normalizeUrl(location, url) : undefined;
    if (!next?.ok) break;
    if (visited.has(next.url)) {
      chain.push("redirect-loop");
      break;
    }
    url = next.url;
  }
  // A redirect to a refused address: the host did answer (the first hop), but its robots.txt cannot be
  // read where it points, so the chain ends "unreachable" and the result is the host's own answer.
  const refusedHop = outcome!.kind === "error" && outcome!.error === "blocked-address" && chain.length > 1;
  const result = resultFor(task, refusedHop ? first! : outcome!);
  // The host is free from the end of the last hop that was asked (the refused one asked nothing), not
  // from the first's: the gap runs from the last request made.
  if (refusedHop) result.endedAt = asked!.endedAt;
  // A refused address of the host itself is not the host's answer: no verdict, and the frontier skips the
  // host's pages one by one (each is refused the same way) instead of parking them behind robots.txt.
  if (result.kind === "skipped") return { result, links: [] };
  const verdict = robotsVerdict(chain);
  result.startedAt = first!.startedAt;
  result.bytes = bytes;
  noteStored(result, stored);
  result.robots = { verdict };
  if (verdict === "parse" && outcome?.kind === "response") {
    result.robots.text = decodeBody(outcome.body, outcome.headers["content-type"]);
  }
  return { result, links: [] };
}
