/**
 * DiscoveredUrl[] (core/model) <-> crawler.fetch.v1.DiscoveredLinks, the batch of links for one
 * partition that travels on `crawl.urls.<region>.<p>`. `isSeed` is present only when true, `sourceUrl`
 * only when non-empty.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import { decodeOrThrow } from "./fetch-task.ts";
import { optional, toUint32 } from "./numbers.ts";

export function discoveredUrlToProto(u: DiscoveredUrl): pb.DiscoveredUrl {
  return {
    url: u.url,
    host: u.host,
    depth: toUint32("depth", u.depth),
    sourceUrl: u.sourceUrl ?? "",
    redirectHops: toUint32("redirectHops", u.redirectHops),
    isSeed: u.isSeed ?? false,
  };
}

export function discoveredUrlFromProto(msg: pb.DiscoveredUrl): DiscoveredUrl {
  const u: DiscoveredUrl = { url: msg.url, host: msg.host, depth: msg.depth, redirectHops: msg.redirectHops };
  const sourceUrl = optional(msg.sourceUrl);
  if (sourceUrl !== undefined) u.sourceUrl = sourceUrl;
  if (msg.isSeed) u.isSeed = true;
  return u;
}

export function encodeDiscoveredLinks(partition: number, urls: readonly DiscoveredUrl[]): Uint8Array {
  return pb.DiscoveredLinks.encode({
    partition: toUint32("partition", partition),
    urls: urls.map(discoveredUrlToProto),
  }).finish();
}

export function decodeDiscoveredLinks(bytes: Uint8Array): { partition: number; urls: DiscoveredUrl[] } {
  const msg = decodeOrThrow("DiscoveredLinks", () => pb.DiscoveredLinks.decode(bytes));
  return { partition: msg.partition, urls: msg.urls.map(discoveredUrlFromProto) };
}
