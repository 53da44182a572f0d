import { expect, test } from "bun:test";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { LinkBatcher } from "./link-batcher.ts";

const link = (url: string): DiscoveredUrl => ({ url, host: new URL(url).host, depth: 1, redirectHops: 0 });

test("link batcher - links of several pages for one partition travel as one message, and each page hears when they are published", async () => {
  const sent: Array<{ region: string; partition: number; urls: string[] }> = [];
  const batcher = new LinkBatcher(async (region, partition, urls) => void sent.push({ region, partition, urls: urls.map((u) => u.url) }), {
    delayMs: 20,
    maxUrls: 100,
  });
  const a = batcher.add([{ region: "us", partition: 3, urls: [link("http://a.test/1")] }]);
  const b = batcher.add([
    { region: "us", partition: 3, urls: [link("http://a.test/2")] },
    { region: "eu", partition: 3, urls: [link("http://b.de/1")] },
  ]);
  expect(sent).toEqual([]);
  await Promise.all([a, b]);
  expect(sent.sort((x, y) => x.region.localeCompare(y.region))).toEqual([
    { region: "eu", partition: 3, urls: ["http://b.de/1"] },
    { region: "us", partition: 3, urls: ["http://a.test/1", "http://a.test/2"] },
  ]);
});

test("link batcher - a full batch goes at once, and a failed publish fails every page that was waiting on it", async () => {
  let calls = 0;
  const batcher = new LinkBatcher(
    async () => {
      calls++;
      throw new Error("stream unavailable");
    },
    { delayMs: 60_000, maxUrls: 2 },
  );
  const pending = batcher.add([{ region: "us", partition: 1, urls: [link("http://a.test/1"), link("http://a.test/2")] }]);
  await expect(pending).rejects.toThrow("stream unavailable");
  expect(calls).toBe(1);
});

test("link batcher - a group larger than a batch leaves in batches of at most maxUrls, all published before it resolves", async () => {
  const sent: number[] = [];
  const batcher = new LinkBatcher(async (_region, _partition, urls) => void sent.push(urls.length), { delayMs: 10, maxUrls: 1_000 });
  await batcher.add([{ region: "us", partition: 0, urls: Array.from({ length: 2_500 }, (_, i) => link(`http://a.test/${i}`)) }]);
  expect(sent).toEqual([1_000, 1_000, 500]);
});
