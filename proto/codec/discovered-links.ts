/**
 * DiscoveredUrl[] (core/model) <-> crawler.fetch.v1.DiscoveredLinks, the batch of links for one
 * partition that travels on `crawl.urls.<region>.<p>`. `isSeed` and `foundOnNearDuplicate` are present
 * only when true, `sourceUrl` only when non-empty, `sitemap` only when the URL names a sitemap, `lastmod`
 * only when non-zero, `sitemapPriority` only when flagged present (proto3 has no presence for a double),
 * `kind` only for a media file (a page is the default, and what senders older than the field mean), `job`
 * only when not 0 (job `default`, and what senders older than the field mean). A
 * priority outside 0..1 or an unknown kind is a CodecError.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import { decodeDiscoveredLinksWire } from "./discovered-links-decode.ts";
import { encodeDiscoveredLinksWire } from "./discovered-links-encode.ts";
import { decodeOrThrow } from "./fetch-task.ts";
import { CodecError } from "./errors.ts";
import { fromInt64, optional, toInt64, toUint32 } from "./numbers.ts";
import { sitemapRefFromProto, sitemapRefToProto } from "./sitemap.ts";

export function discoveredUrlToProto(u: DiscoveredUrl): pb.DiscoveredUrl {
  return {
    url: u.url,
    host: u.host,
    depth: toUint32("depth", u.depth),
    sourceUrl: u.sourceUrl ?? "",
    redirectHops: toUint32("redirectHops", u.redirectHops),
    isSeed: u.isSeed ?? false,
    sitemap: u.sitemap ? sitemapRefToProto(u.sitemap) : undefined,
    lastmodMs: u.lastmod === undefined ? 0n : toInt64("lastmod", u.lastmod),
    sitemapPriority: u.sitemapPriority ?? 0,
    hasSitemapPriority: u.sitemapPriority !== undefined,
    kind: u.kind === "media" ? pb.UrlKind.URL_KIND_MEDIA : pb.UrlKind.URL_KIND_UNSPECIFIED,
    foundOnNearDuplicate: u.foundOnNearDuplicate ?? false,
    job: toUint32("job", u.job ?? 0),
    foundByRender: u.foundByRender ?? false,
  };
}

export function discoveredUrlFromProto(msg: pb.DiscoveredUrl): DiscoveredUrl {
  const u: DiscoveredUrl = { url: msg.url, host: msg.host, depth: msg.depth, redirectHops: msg.redirectHops };
  const sourceUrl = optional(msg.sourceUrl);
  if (sourceUrl !== undefined) u.sourceUrl = sourceUrl;
  if (msg.isSeed) u.isSeed = true;
  if (msg.sitemap) u.sitemap = sitemapRefFromProto(msg.sitemap);
  if (msg.lastmodMs !== 0n) u.lastmod = fromInt64("lastmodMs", msg.lastmodMs);
  if (msg.hasSitemapPriority) {
    if (!(msg.sitemapPriority >= 0 && msg.sitemapPriority <= 1))
      throw new CodecError(`sitemap priority ${msg.sitemapPriority} is not in 0..1`);
    u.sitemapPriority = msg.sitemapPriority;
  }
  if (msg.foundOnNearDuplicate) u.foundOnNearDuplicate = true;
  if (msg.job > 0) u.job = msg.job;
  if (msg.foundByRender) u.foundByRender = true;
  switch (msg.kind) {
    case pb.UrlKind.URL_KIND_UNSPECIFIED:
    case pb.UrlKind.URL_KIND_PAGE:
      break;
    case pb.UrlKind.URL_KIND_MEDIA:
      u.kind = "media";
      break;
    default:
      throw new CodecError(`discovered URL kind ${msg.kind} is not a known kind`);
  }
  return u;
}

/** Written by hand (discovered-links-encode.ts): the generated encoder's bytes and errors, for less CPU. */
export function encodeDiscoveredLinks(partition: number, urls: readonly DiscoveredUrl[]): Uint8Array {
  return encodeDiscoveredLinksWire(partition, urls);
}

/** Read by hand (discovered-links-decode.ts): the generated decoder's results and errors, for less CPU. */
export function decodeDiscoveredLinks(bytes: Uint8Array): { partition: number; urls: DiscoveredUrl[] } {
  return decodeDiscoveredLinksWire(bytes);
}

/** Through the generated code (proto/gen): the reference the hand-written codec is checked and measured against. */
export function encodeDiscoveredLinksGenerated(partition: number, urls: readonly DiscoveredUrl[]): Uint8Array {
  return pb.DiscoveredLinks.encode({
    partition: toUint32("partition", partition),
    urls: urls.map(discoveredUrlToProto),
  }).finish();
}

/** Through the generated code (proto/gen): the reference the hand-written codec is checked and measured against. */
export function decodeDiscoveredLinksGenerated(bytes: Uint8Array): { partition: number; urls: DiscoveredUrl[] } {
  const msg = decodeOrThrow("DiscoveredLinks", () => pb.DiscoveredLinks.decode(bytes));
  return { partition: msg.partition, urls: msg.urls.map(discoveredUrlFromProto) };
}
