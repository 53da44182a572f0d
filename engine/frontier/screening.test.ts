/**
 * Screening, on its own: the rules a URL faces before the seen-set is asked, each refusal counted by its
 * reason, and counted only when the caller says the batch went through.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { FrontierState } from "./frontier-state.ts";
import { Screening } from "./screening.ts";
import { FrontierStore } from "./store/frontier-store.ts";

function setup(policy: Partial<PolicyConfig> = {}) {
  const state = new FrontierState({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: { ...DEFAULT_POLICY, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => 0,
    newTaskId: () => "t",
  });
  return { state, screening: new Screening(state) };
}

const link = (url: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl => ({
  url,
  host: hostKeyOf(url),
  depth: 1,
  redirectHops: 0,
  ...extra,
});

describe("screening", () => {
  test("screening - refuses out-of-scope URLs, internal addresses and trap URLs, each counted by its reason", () => {
    const { state, screening } = setup({ scope: "host", maxUrlLength: 60 });
    state.scope.roots.add(["a.test"]);
    const tally = new Counters();
    const kept = screening.pages(
      [
        link("http://a.test/fine"),
        link("http://elsewhere.test/page"),
        link("http://127.0.0.1/admin"),
        link(`http://a.test/${"x".repeat(80)}`),
        link("http://a.test/also-fine"),
      ],
      tally,
    );
    expect(kept.map((u) => u.url)).toEqual(["http://a.test/fine", "http://a.test/also-fine"]);
    expect(tally.toJSON()).toEqual({
      "admission.rejected.scope": 1,
      "admission.refused.loopback": 1,
      "traps.rejected.url-too-long": 1,
    });
  });

  test("screening - refusals reach the frontier's counters only when the caller counts the batch", () => {
    const { state, screening } = setup();
    const tally = new Counters();
    screening.pages([link("http://10.0.0.1/"), link("http://localhost/")], tally);
    expect(state.counters.toJSON()).toEqual({});
    screening.count(tally);
    expect(state.counters.toJSON()).toEqual({ "admission.refused.private": 1, "admission.refused.localhost": 1 });
  });

  test("screening - a URL found twice in one batch is judged and kept once", () => {
    const { screening } = setup();
    const kept = screening.pages([link("http://a.test/x"), link("http://a.test/x"), link("http://a.test/y")], new Counters());
    expect(kept.map((u) => u.url)).toEqual(["http://a.test/x", "http://a.test/y"]);
  });

  test("screening - a media file is refused while --fetch-media is off, and kept when it is on", () => {
    const media = link("http://a.test/photo.jpg", { kind: "media" });
    const off = new Counters();
    expect(setup({ fetchMedia: false }).screening.pages([media], off)).toEqual([]);
    expect(off.toJSON()).toEqual({ "admission.rejected.fetch-media-off": 1 });
    expect(setup({ fetchMedia: true }).screening.pages([media], new Counters())).toEqual([media]);
  });

  test("screening - sitemaps face the address policy and the redirect limit, not the scope; none are kept with --sitemaps off", () => {
    const { state, screening } = setup({ scope: "host", maxRedirects: 2 });
    state.scope.roots.add(["a.test"]);
    const tally = new Counters();
    const refs = [
      link("http://cdn.test/sitemap.xml"),
      link("http://192.168.1.1/sitemap.xml"),
      link("http://a.test/moved.xml", { redirectHops: 3 }),
    ];
    expect(screening.sitemaps(refs, tally).map((u) => u.url)).toEqual(["http://cdn.test/sitemap.xml"]);
    expect(tally.toJSON()).toEqual({ "admission.refused.private": 1, "sitemap.too-many-redirects": 1 });
    const off = new Counters();
    expect(setup({ sitemaps: "off" }).screening.sitemaps(refs, off)).toEqual([]);
    expect(off.toJSON()).toEqual({ "sitemap.ignored-off": 3 });
  });
});
