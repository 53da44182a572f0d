/**
 * A feed's own reread schedule (RSS, Atom), adaptive like a page's (core/schedule): after each read its
 * interval is halved when the feed listed something the crawl had never seen, doubled when it was unchanged
 * (a 304 to the conditional GET, or only known items), within `--refetch-min` and `--refetch-max`; a first
 * read starts at `--refetch-initial`. A failed read (no answer, an error status) waits longer too, as an
 * unchanged one. The validators of the last 2xx answer (ETag, Last-Modified) are kept for the next read's
 * If-None-Match / If-Modified-Since; a 304 keeps them unless it sends new ones.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { FetchResult } from "../../core/model/index.ts";
import { nextRefetchInterval } from "../../core/schedule/index.ts";
import type { FeedSchedule } from "./store/sitemap-table.ts";

type SchedulePolicy = Pick<PolicyConfig, "refetchInitialMs" | "refetchMinMs" | "refetchMaxMs">;

/** Whether a feed's answer was a 304 to its conditional GET: nothing to read, the feed is unchanged. */
export function feedNotModified(result: FetchResult): boolean {
  return result.kind === "response" && result.status === 304;
}

/** The feed's schedule after a read: `listedNew` says whether its items held a URL never seen before. */
export function nextFeedSchedule(
  prev: FeedSchedule | undefined,
  result: FetchResult,
  listedNew: boolean,
  policy: SchedulePolicy,
): FeedSchedule {
  const ok = result.kind === "response" && result.status >= 200 && result.status < 300;
  const notModified = feedNotModified(result);
  const rereadMs =
    !prev || prev.rereadMs <= 0
      ? Math.min(policy.refetchMaxMs, Math.max(policy.refetchMinMs, policy.refetchInitialMs))
      : nextRefetchInterval(prev.rereadMs, ok && listedNew ? true : notModified ? "not-modified" : false, policy);
  if (result.kind !== "response" || (!ok && !notModified)) return { ...prev, rereadMs };
  const etag = result.etag ?? (notModified ? prev?.etag : undefined);
  const lastModified = result.lastModified ?? (notModified ? prev?.lastModified : undefined);
  return { rereadMs, ...(kept(etag) ? { etag } : {}), ...(kept(lastModified) ? { lastModified } : {}) };
}

/** A validator is echoed as sent, so one cut short would be wrong: a longer one (a hostile server's kilobytes) is not kept. */
const MAX_VALIDATOR = 256;

function kept(v: string | undefined): v is string {
  return v !== undefined && v.length > 0 && v.length <= MAX_VALIDATOR;
}
