/**
 * Catches trap families the fixed limits miss: endless URLs of one host that differ only by numbers,
 * such as a calendar (`/calendar/2026/11/29`, `?month=11&year=2026`) or a generated archive. Each URL
 * is reduced to its family by replacing every run of digits with `#` (`/calendar/#/#/#`), and a host
 * may have at most `maxQueuedPerPattern` queued URLs in one family.
 *
 * Only families that look like traps are tracked: those with two or more numbers, or one number that
 * reads as a compact date (`20261129`). A family with a single plain number is an ID or a page number
 * (`/product/12345`, `?page=7`), which a large site legitimately has by the hundred thousand; those are
 * bounded by the per-host queue cap instead. A calendar walked one day at a time keeps few URLs queued
 * at once; that chain is bounded by the depth limit.
 *
 * The tracker is an in-memory index per host (a Map of Maps), like the waiting-host heap, with a plain
 * `snapshot()` for persistence. The frontier calls `add` when it queues a URL and `remove` when the URL
 * leaves the queue; a frontier that never calls `remove` gets the stricter "admitted ever" count.
 */
import type { PolicyConfig } from "../config/index.ts";
import type { TrapVerdict } from "./check-trap.ts";
import { urlPathAndQuery } from "./url-parts.ts";

/** A URL's family, and whether the family is one that can be a trap. */
export interface UrlFamily {
  /** Path and query with every digit run replaced by `#`. */
  readonly family: string;
  /** How many digit runs were replaced. */
  readonly numbers: number;
  readonly trapProne: boolean;
}

// 19xx or 20xx, a month 01-12 and a day 01-31, eight digits in a row.
const COMPACT_DATE = /^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;

/** Reduces a normalized URL to its family (host excluded: the tracker is keyed by host). */
export function urlFamily(url: string): UrlFamily {
  let numbers = 0;
  let compactDate = false;
  const family = urlPathAndQuery(url).replace(/\d+/g, (digits) => {
    numbers++;
    if (COMPACT_DATE.test(digits)) compactDate = true;
    return "#";
  });
  return { family, numbers, trapProne: numbers >= 2 || compactDate };
}

/**
 * The family of a URL when it is trap-prone, else undefined: what the tracker needs, found without
 * building the family string for the common URL with one plain number or none (a first pass counts the
 * digit runs and spots an eight-digit one). Agrees with `urlFamily` on every URL.
 */
function trapFamily(url: string): string | undefined {
  const path = urlPathAndQuery(url);
  let runs = 0;
  let run = 0;
  let eightDigitRun = false;
  for (let i = 0; i <= path.length; i++) {
    const c = i < path.length ? path.charCodeAt(i) : 0;
    if (c >= 0x30 && c <= 0x39) {
      run++;
      continue;
    }
    if (run > 0) {
      runs++;
      if (run === 8) eightDigitRun = true;
      run = 0;
    }
  }
  if (runs < 2 && !eightDigitRun) return undefined;
  const { family, trapProne } = urlFamily(url);
  return trapProne ? family : undefined;
}

/** Per-host family counts, as plain data. */
export type UrlPatternSnapshot = Record<string, Record<string, number>>;

// A hostile host could mint endless distinct families; past this many per host, new ones are not
// tracked (each would hold a single URL anyway, which is not the pattern this guards against).
const MAX_FAMILIES_PER_HOST = 10_000;

export class UrlPatternTracker {
  readonly #hosts = new Map<string, Map<string, number>>();
  readonly #cfg: Pick<PolicyConfig, "maxQueuedPerPattern">;

  constructor(cfg: Pick<PolicyConfig, "maxQueuedPerPattern">) {
    this.#cfg = cfg;
  }

  /** Rebuilds a tracker from a `snapshot()`. */
  static restore(snapshot: UrlPatternSnapshot, cfg: Pick<PolicyConfig, "maxQueuedPerPattern">): UrlPatternTracker {
    const tracker = new UrlPatternTracker(cfg);
    for (const [host, families] of Object.entries(snapshot)) {
      tracker.#hosts.set(host, new Map(Object.entries(families).filter(([, count]) => count > 0)));
    }
    return tracker;
  }

  /** Queued URLs of `host` in the family of `url`; 0 for families not tracked. */
  count(host: string, url: string): number {
    const family = trapFamily(url);
    return family !== undefined ? (this.#hosts.get(host)?.get(family) ?? 0) : 0;
  }

  /** Whether one more URL of this family may be queued for `host`, without recording it. */
  check(host: string, url: string): TrapVerdict {
    const family = trapFamily(url);
    if (family === undefined) return { ok: true };
    const count = this.#hosts.get(host)?.get(family) ?? 0;
    if (count < this.#cfg.maxQueuedPerPattern) return { ok: true };
    return {
      ok: false,
      reason: "url-pattern-flood",
      detail: `${count} URLs like "${family}" queued for ${host}, the limit is ${this.#cfg.maxQueuedPerPattern}`,
    };
  }

  /** Records a URL queued for `host`. */
  add(host: string, url: string): void {
    const family = trapFamily(url);
    if (family === undefined) return;
    let families = this.#hosts.get(host);
    if (!families) {
      families = new Map();
      this.#hosts.set(host, families);
    }
    const count = families.get(family);
    if (count === undefined && families.size >= MAX_FAMILIES_PER_HOST) return;
    families.set(family, (count ?? 0) + 1);
  }

  /** `check`, and when it passes, `add`: the usual call when a URL is about to be queued. */
  admit(host: string, url: string): TrapVerdict {
    const verdict = this.check(host, url);
    if (verdict.ok) this.add(host, url);
    return verdict;
  }

  /** Records that a URL of `host` left the queue (fetched or dropped). */
  remove(host: string, url: string): void {
    const family = trapFamily(url);
    if (family === undefined) return;
    const families = this.#hosts.get(host);
    const count = families?.get(family);
    if (!families || count === undefined) return;
    if (count > 1) families.set(family, count - 1);
    else {
      families.delete(family);
      if (families.size === 0) this.#hosts.delete(host);
    }
  }

  /** Drops everything known about a host (its partition moved away, or its queue was cleared). */
  forgetHost(host: string): void {
    this.#hosts.delete(host);
  }

  /** The counts as plain data, for persistence or handoff of a host to a new owner. */
  snapshot(hosts?: Iterable<string>): UrlPatternSnapshot {
    const out: UrlPatternSnapshot = {};
    for (const host of hosts ?? this.#hosts.keys()) {
      const families = this.#hosts.get(host);
      if (families) out[host] = Object.fromEntries(families);
    }
    return out;
  }
}
