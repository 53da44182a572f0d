/**
 * A sitemap's `<priority>` (0.0 to 1.0, default 0.5: how the site's owner ranks a URL among its own) on
 * the frontier's three front queues: 0.8 and above go to level 1 with home pages, below 0.3 to level 3,
 * the rest to level 2. A home page stays at level 1 whatever its priority says. A URL without a priority
 * gets the level its depth gives it, like any link.
 */
import type { Priority } from "../model/index.ts";

/** The level of a sitemap priority; undefined when the value is not a number from 0 to 1. */
export function levelOfSitemapPriority(value: number | undefined): Priority | undefined {
  if (value === undefined || !Number.isFinite(value) || value < 0 || value > 1) return undefined;
  if (value >= 0.8) return 1;
  if (value < 0.3) return 3;
  return 2;
}

/** A `<priority>` text as a number from 0 to 1, or undefined. */
export function parseSitemapPriority(text: string): number | undefined {
  const t = text.trim();
  if (!/^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/.test(t)) return undefined;
  return Number(t);
}
