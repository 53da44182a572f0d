/**
 * The sitemap parts of the fetch messages: SitemapRef (core/model) <-> crawler.fetch.v1.SitemapRef, carried
 * by a sitemap task and by a DiscoveredUrl that names a sitemap; SitemapSummary <-> its message, carried by
 * a sitemap task's result. A grant must be an origin with its trailing slash, a format and a limit one of
 * the known words: anything else is a CodecError.
 */
import type { SitemapRef, SitemapSummary } from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import { CodecError } from "./errors.ts";
import { optional, toUint32 } from "./numbers.ts";

const FORMATS: readonly SitemapSummary["format"][] = ["urlset", "index", "text", "rss", "atom", "not-a-sitemap"];
const LIMITS: readonly NonNullable<SitemapSummary["limit"]>[] = ["entries", "bytes"];
const GRANT = /^https?:\/\/[^/\s]+\/$/;

export function sitemapRefToProto(ref: SitemapRef): pb.SitemapRef {
  return { grants: [...ref.grants], fromIndex: ref.fromIndex ?? false, feed: ref.feed ?? false };
}

export function sitemapRefFromProto(msg: pb.SitemapRef): SitemapRef {
  for (const grant of msg.grants) if (!GRANT.test(grant)) throw new CodecError(`sitemap grant ${JSON.stringify(grant)} is not an origin`);
  return { grants: [...msg.grants], ...(msg.fromIndex ? { fromIndex: true } : {}), ...(msg.feed ? { feed: true } : {}) };
}

export function sitemapSummaryToProto(s: SitemapSummary): pb.SitemapSummary {
  return {
    format: s.format,
    entries: toUint32("sitemap.entries", s.entries),
    outOfLocation: toUint32("sitemap.outOfLocation", s.outOfLocation),
    invalid: toUint32("sitemap.invalid", s.invalid),
    limit: s.limit ?? "",
    nestedIndex: s.nestedIndex ?? false,
  };
}

export function sitemapSummaryFromProto(msg: pb.SitemapSummary): SitemapSummary {
  const format = msg.format as SitemapSummary["format"];
  if (!FORMATS.includes(format)) throw new CodecError(`sitemap format ${JSON.stringify(msg.format)} is not a known format`);
  const summary: SitemapSummary = { format, entries: msg.entries, outOfLocation: msg.outOfLocation, invalid: msg.invalid };
  const limit = optional(msg.limit) as SitemapSummary["limit"];
  if (limit !== undefined) {
    if (!LIMITS.includes(limit)) throw new CodecError(`sitemap limit ${JSON.stringify(msg.limit)} is not a known limit`);
    summary.limit = limit;
  }
  if (msg.nestedIndex) summary.nestedIndex = true;
  return summary;
}
