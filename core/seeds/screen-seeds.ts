/**
 * Which seeds of one add-seeds request are taken, pure: each URL normalized (core/url), a repeat within the
 * request rejected as a duplicate, a host the address policy refuses (an internal address, a local name:
 * core/net, the frontier's admission check) rejected with that policy's reason. The taken ones are seeds
 * of `job` (its number; 0, `default`, is carried as none). The cluster publishes them to the partitions'
 * streams (coordinator/seeds.ts), `crawl` admits them into its frontier (embedded/jobs.ts); both answer
 * `{accepted, rejected}` alike. `feeds` (RSS, Atom) are screened the same way, after `urls`, and taken as
 * sitemap references marked feed, vouched for by their own origin: the frontier reads each as a feed (its
 * items queued first, read again on its own schedule), as `crawl --feeds` does.
 */
import type { DiscoveredUrl } from "../model/index.ts";
import { type AddressPolicy, describeRefusal } from "../net/index.ts";
import { hostKeyOf, normalizeUrl, originOf } from "../url/index.ts";

export interface RejectedSeed {
  url: string;
  reason: string;
}

export function screenSeeds(
  urls: readonly string[],
  addresses: AddressPolicy,
  job: number,
  feeds: readonly string[] = [],
): { accepted: DiscoveredUrl[]; rejected: RejectedSeed[] } {
  const rejected: RejectedSeed[] = [];
  const accepted: DiscoveredUrl[] = [];
  const seen = new Set<string>();
  const count = urls.length + feeds.length;
  for (let i = 0; i < count; i++) {
    const feed = i >= urls.length;
    const input = feed ? feeds[i - urls.length]! : urls[i]!;
    const n = normalizeUrl(input);
    if (!n.ok) {
      rejected.push({ url: input, reason: n.reason });
      continue;
    }
    if (seen.has(n.url)) {
      rejected.push({ url: input, reason: `duplicate: same as an earlier URL in this request (${n.url})` });
      continue;
    }
    const host = hostKeyOf(n.url);
    const refusal = addresses.checkHost(host);
    if (refusal) {
      rejected.push({ url: input, reason: `refused-address: ${refusal.reason}: ${describeRefusal(refusal)}` });
      continue;
    }
    seen.add(n.url);
    const seed: DiscoveredUrl = { url: n.url, host, depth: 0, redirectHops: 0, isSeed: true, ...(job !== 0 && { job }) };
    if (feed) seed.sitemap = { grants: [`${originOf(n.url)}/`], feed: true };
    accepted.push(seed);
  }
  return { accepted, rejected };
}
