/**
 * What the frontier does for rendering (core/render): which page tasks ask for it (the rule for the URL and
 * what rendering found on the host before, remembered in the host's persisted state), with the host's
 * robots.txt text; none while the cluster has no fetch node that renders; and links found only by rendering
 * marked for `url explain`.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchTask, RenderReport, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const ROBOTS = "User-agent: *\nDisallow: /private/\n";

function setup(policy: Partial<PolicyConfig>, renderAvailable?: () => boolean) {
  const clock = { now: T0 };
  let n = 0;
  const store = FrontierStore.open(":memory:");
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, sitemaps: "robots", ...policy },
    partitions: 16,
    maxQueued: 1_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    ...(renderAvailable ? { renderAvailable } : {}),
  });
  return { frontier, clock, store };
}

const link = (url: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl => ({
  url,
  host: hostKeyOf(url),
  depth: 1,
  redirectHops: 0,
  ...extra,
});

function answer(task: FetchTask, at: number, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: at,
    endedAt: at,
    linksFound: 0,
    bytes: 10,
    ...extra,
  };
}

/** Works the host's tasks one at a time; robots.txt answers ROBOTS; each page as `reply` says. */
async function crawl(
  frontier: Frontier,
  clock: { now: number },
  reply: (task: FetchTask) => { render?: RenderReport; links?: DiscoveredUrl[] } = () => ({}),
): Promise<FetchTask[]> {
  const pages: FetchTask[] = [];
  for (let i = 0; i < 100; i++) {
    clock.now += 10;
    const [task] = frontier.nextTasks(1);
    if (!task) {
      if (frontier.queued === 0) break;
      continue;
    }
    if (task.kind === "robots") {
      await frontier.complete(answer(task, clock.now, { robots: { verdict: "parse", text: ROBOTS } }), []);
      continue;
    }
    const { render, links = [] } = reply(task);
    await frontier.complete(answer(task, clock.now, render ? { render } : {}), links);
    pages.push(task);
  }
  return pages;
}

const rendered = (extraLinks: number): RenderReport => ({ outcome: "rendered", extraLinks, hostRequests: 1 });

describe("frontier: rendering", () => {
  test("frontier rendering - with --render never no task asks; with auto each page asks, with the host's robots.txt", async () => {
    const never = setup({});
    await never.frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const plain = await crawl(never.frontier, never.clock, () => ({ links: [link("http://a.test/p")] }));
    expect(plain.map((t) => t.render)).toEqual([undefined, undefined]);

    const auto = setup({ render: "auto" });
    await auto.frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const asked = await crawl(auto.frontier, auto.clock, () => ({ links: [link("http://a.test/p")] }));
    expect(asked.map((t) => [t.render, t.robotsText])).toEqual([
      ["auto", ROBOTS],
      ["auto", ROBOTS],
    ]);
  });

  test("frontier rendering - a host where rendering found more links is rendered always; one where it never did, no more", async () => {
    const helps = setup({ render: "auto" });
    await helps.frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const a = await crawl(helps.frontier, helps.clock, (t) =>
      t.url === "http://a.test/" ? { render: rendered(2), links: [link("http://a.test/x", { foundByRender: true })] } : {},
    );
    expect(a.map((t) => [t.url, t.render])).toEqual([
      ["http://a.test/", "auto"],
      ["http://a.test/x", "always"],
    ]);
    expect(helps.frontier.counters.get("render.links-found")).toBe(2);

    const useless = setup({ render: "auto" });
    await useless.frontier.addSeeds([link("http://b.test/", { depth: 0 })]);
    const next = (i: number) => link(`http://b.test/p${i}`);
    const b = await crawl(useless.frontier, useless.clock, (t) => {
      const i = t.url === "http://b.test/" ? 0 : Number(t.url.slice("http://b.test/p".length)) + 1;
      return i < 6 ? { render: rendered(0), links: [next(i)] } : {};
    });
    // Four renders found nothing: from then on the host's pages are parsed as received.
    expect(b.map((t) => t.render)).toEqual(["auto", "auto", "auto", "auto", undefined, undefined, undefined]);
  });

  test("frontier rendering - a rule overrides --render for its host and URLs", async () => {
    const { frontier, clock } = setup({ render: "never", renderRules: ["always:a.test", "never:http://a.test/static/*"] });
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawl(frontier, clock, (t) => (t.url === "http://a.test/" ? { links: [link("http://a.test/static/x")] } : {}));
    expect(tasks.map((t) => [t.url, t.render])).toEqual([
      ["http://a.test/", "always"],
      ["http://a.test/static/x", undefined],
    ]);
  });

  test("frontier rendering - with no fetch node that renders, no task asks for it; once one is there, they do", async () => {
    let available = false;
    const { frontier, clock } = setup({ render: "always" }, () => available);
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    const tasks = await crawl(frontier, clock, (t) => {
      if (t.url === "http://a.test/") {
        available = true; // a rendering fetch node joined while the home page was fetched
        return { links: [link("http://a.test/p")] };
      }
      return {};
    });
    expect(tasks.map((t) => [t.url, t.render])).toEqual([
      ["http://a.test/", undefined],
      ["http://a.test/p", "always"],
    ]);
    expect(frontier.counters.get("render.no-renderer")).toBe(1);
  });

  test("frontier rendering - url explain says which links only rendering found", async () => {
    const { frontier, clock } = setup({ render: "always" });
    await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
    await crawl(frontier, clock, (t) =>
      t.url === "http://a.test/"
        ? { render: rendered(1), links: [link("http://a.test/html"), link("http://a.test/js", { foundByRender: true })] }
        : {},
    );
    expect(frontier.explainUrl("http://a.test/js", "a.test").foundByRender).toBe(true);
    expect(frontier.explainUrl("http://a.test/html", "a.test").foundByRender).toBe(false);
    expect(frontier.explainUrl("http://a.test/", "a.test").foundByRender).toBe(false);
  });

  test("frontier rendering - a 429 or 503 to one of the render's requests backs the host off as for the page's own", async () => {
    const run = async (hostThrottled: boolean) => {
      const { frontier, clock } = setup({ render: "always", minGapMs: 1_000 });
      await frontier.addSeeds([link("http://a.test/", { depth: 0 })]);
      for (let i = 0; i < 10; i++) {
        const [task] = frontier.nextTasks(1);
        if (!task) break;
        clock.now += 10;
        const extra: Partial<ResponseResult> =
          task.kind === "robots"
            ? { robots: { verdict: "parse", text: ROBOTS } }
            : { render: { ...rendered(0), ...(hostThrottled ? { hostThrottled: true } : {}) } };
        await frontier.complete(answer(task, clock.now, extra), []);
        clock.now += 5_000;
        if (task.kind === "page") return frontier.hostInfo("a.test")!.state;
      }
      throw new Error("no page task");
    };
    const calm = await run(false);
    const throttled = await run(true);
    expect(calm.throttleMs).toBe(0);
    expect(throttled.throttleMs).toBeGreaterThan(0);
    expect(throttled.nextAllowedAt).toBeGreaterThan(calm.nextAllowedAt);
  });
});
