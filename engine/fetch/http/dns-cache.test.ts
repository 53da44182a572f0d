import { expect, test } from "bun:test";
import { DnsCache, type ResolvedAddress } from "./dns-cache.ts";
import { DnsLookupError } from "./errors.ts";

function countingLookup(answers: Record<string, ResolvedAddress[] | Error>) {
  const calls: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const answer = answers[host];
    if (!answer || answer instanceof Error)
      throw answer ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answer;
  };
  return { calls, lookup };
}

const site: ResolvedAddress[] = [{ address: "93.184.216.34", family: 4 }];

test("dns cache - answers from the cache within the TTL and asks again after it", async () => {
  let now = 0;
  const { calls, lookup } = countingLookup({ "site.test": site });
  const cache = new DnsCache({ lookup, ttlMs: 1000, now: () => now });
  expect(await cache.resolve("site.test")).toEqual(site);
  now = 999;
  expect(await cache.resolve("SITE.test")).toEqual(site);
  expect(calls).toEqual(["site.test"]);
  now = 1000;
  await cache.resolve("site.test");
  expect(calls).toEqual(["site.test", "site.test"]);
});

test("dns cache - remembers a failed lookup for the negative TTL only", async () => {
  let now = 0;
  const { calls, lookup } = countingLookup({});
  const cache = new DnsCache({ lookup, ttlMs: 60_000, negativeTtlMs: 100, now: () => now });
  await expect(cache.resolve("gone.test")).rejects.toBeInstanceOf(DnsLookupError);
  await expect(cache.resolve("gone.test")).rejects.toBeInstanceOf(DnsLookupError);
  expect(calls.length).toBe(1);
  now = 100;
  await expect(cache.resolve("gone.test")).rejects.toBeInstanceOf(DnsLookupError);
  expect(calls.length).toBe(2);
});

test("dns cache - shares one lookup between concurrent callers", async () => {
  const { calls, lookup } = countingLookup({ "site.test": site });
  const cache = new DnsCache({ lookup });
  const answers = await Promise.all([cache.resolve("site.test"), cache.resolve("site.test"), cache.resolve("site.test")]);
  expect(answers).toEqual([site, site, site]);
  expect(calls.length).toBe(1);
});

test("dns cache - treats an empty answer as a failure", async () => {
  const cache = new DnsCache({ lookup: async () => [] });
  await expect(cache.resolve("empty.test")).rejects.toBeInstanceOf(DnsLookupError);
});

test("dns cache - stops waiting when the signal aborts, without failing other callers", async () => {
  let release: (value: ResolvedAddress[]) => void = () => {};
  const cache = new DnsCache({
    lookup: () =>
      new Promise((resolve) => {
        release = resolve;
      }),
  });
  const controller = new AbortController();
  const impatient = cache.resolve("slow.test", controller.signal);
  const patient = cache.resolve("slow.test");
  controller.abort(new Error("enough"));
  await expect(impatient).rejects.toBeInstanceOf(DnsLookupError);
  release(site);
  expect(await patient).toEqual(site);
});

test("dns cache - drops the oldest names beyond its size", async () => {
  const { calls, lookup } = countingLookup({ "a.test": site, "b.test": site, "c.test": site });
  const cache = new DnsCache({ lookup, maxEntries: 2 });
  await cache.resolve("a.test");
  await cache.resolve("b.test");
  await cache.resolve("c.test");
  await cache.resolve("a.test");
  expect(calls).toEqual(["a.test", "b.test", "c.test", "a.test"]);
});
