/**
 * The Renderer port over the pool: for each page, the request router (the page's response from memory, its
 * host's requests in the task's turn, the host's robots.txt from the task, the shared subresource cache),
 * then the pool's render. Built by the composition root of a process that renders (`crawl`'s fetch
 * threads, a fetch node with Chromium), which owns it and closes it.
 */
import type { FetchResponse, FetchTask } from "../../core/model/index.ts";
import type { AddressPolicy } from "../../core/net/index.ts";
import type { Fetcher, Renderer, RenderOutput } from "../../core/ports/index.ts";
import { parseRobots, policyFor, type RobotsPolicy } from "../../core/robots/index.ts";
import { normalizeUrl } from "../../core/url/index.ts";
import { HostTurn } from "./host-turn.ts";
import type { RenderPool } from "./pool.ts";
import { browserHeaders, RequestRouter } from "./request-router.ts";
import { SubresourceCache } from "./subresource-cache.ts";

export interface ChromiumRendererOptions {
  pool: RenderPool;
  fetcher: Fetcher;
  addresses: AddressPolicy;
  userAgent: string;
  /** Hard deadline of one render, from its start. */
  deadlineMs: number;
  /** Network quiet this long ends a render early. */
  settleMs: number;
  screenshots: boolean;
  gap: { multiplier: number; marginMs: number };
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  cache?: SubresourceCache;
}

/** Compiled robots.txt rules kept, by text (hosts of one site often share one). */
const ROBOTS_KEPT = 64;

export class ChromiumRenderer implements Renderer {
  private readonly cache: SubresourceCache;
  private readonly robots = new Map<string, RobotsPolicy>();

  constructor(private readonly o: ChromiumRendererOptions) {
    this.cache = o.cache ?? new SubresourceCache();
  }

  get pool(): RenderPool {
    return this.o.pool;
  }

  async render(task: FetchTask, response: FetchResponse, signal?: AbortSignal): Promise<RenderOutput> {
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    const turn = new HostTurn(
      { hostGapMs: task.hostGapMs, multiplier: this.o.gap.multiplier, marginMs: this.o.gap.marginMs, now: this.o.now, sleep: this.o.sleep },
      response,
    );
    const normalized = normalizeUrl(task.url);
    const router = new RequestRouter({
      pageUrl: normalized.ok ? normalized.url : task.url,
      pageHost: task.host,
      page: { status: response.status, headers: browserHeaders(response.headers), body: response.body },
      robots: this.robotsOf(task.robotsText),
      addresses: this.o.addresses,
      fetch: (url, s) => this.o.fetcher.fetch({ url, signal: s }),
      cache: this.cache,
      turn,
      signal: controller.signal,
      now: this.o.now,
    });
    try {
      // The deadline runs from when the pool has a slot and a browser for the page, not while it waits.
      const outcome = await this.o.pool.render(() => {
        const deadlineAt = this.o.now() + this.o.deadlineMs;
        router.setDeadline(deadlineAt);
        return {
          url: task.url,
          userAgent: this.o.userAgent,
          router,
          deadlineAt,
          screenshot: this.o.screenshots,
          settleMs: this.o.settleMs,
          now: this.o.now,
        };
      });
      // The page is gone: no request of it may still be waiting for the host.
      controller.abort(new Error("render finished"));
      await turn.quiet();
      const page = outcome.kind === "rendered" ? { ...outcome, navigations: router.navigations } : outcome;
      const span = turn.span();
      return {
        page,
        host: { requests: turn.requests, ...span },
        answers: Object.fromEntries(router.counts),
        restarts: this.o.pool.takeRestarts(),
      };
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }

  private robotsOf(text: string | undefined): RobotsPolicy | undefined {
    if (text === undefined || text === "") return undefined;
    let policy = this.robots.get(text);
    if (!policy) {
      policy = policyFor(parseRobots(text), this.o.userAgent);
      if (this.robots.size >= ROBOTS_KEPT) this.robots.delete(this.robots.keys().next().value!);
      this.robots.set(text, policy);
    }
    return policy;
  }

  close(): Promise<void> {
    return this.o.pool.close();
  }
}
