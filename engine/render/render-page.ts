/**
 * One render: a fresh browser context (no cookies, storage or cache shared with any other page; service
 * workers blocked, downloads refused, no permission granted), every request routed to the crawler
 * (request-router.ts), the page loaded from the response already fetched, then given until its network is
 * quiet for `settleMs` or the deadline, whichever comes first, and its DOM taken. A page that never
 * finishes loading is taken as it stands at the deadline; a page whose tab crashes, or that does not
 * answer by the deadline, fails the render (the page task keeps what it parsed from the HTML). The context
 * is closed in every case, which also ends whatever the page still runs.
 */
import type { Browser, BrowserContext, Route } from "playwright-core";
import type { RequestRouter } from "./request-router.ts";

export interface RenderJob {
  url: string;
  userAgent: string;
  router: RequestRouter;
  deadlineAt: number;
  screenshot: boolean;
  /** Network quiet this long ends the wait for late requests (script-loaded data). */
  settleMs: number;
  now: () => number;
}

export type RenderOutcome =
  | { kind: "rendered"; dom: string; screenshot?: Uint8Array; timedOut: boolean }
  | { kind: "failed"; reason: "crashed" | "deadline" | "browser"; message: string };

/** Rejects with `reason` once the deadline has passed. */
function deadline(at: number, now: () => number): { promise: Promise<never>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), Math.max(0, at - now()));
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

class DeadlineError extends Error {
  constructor() {
    super("render deadline passed");
  }
}

class CrashError extends Error {
  constructor() {
    super("the page's tab crashed");
  }
}

export async function renderPage(browser: Browser, job: RenderJob): Promise<RenderOutcome> {
  let context: BrowserContext | undefined;
  // The DOM is taken before the deadline, with a fifth of the time (at most 3 s) left to take it: on a
  // loaded machine serializing a page's DOM takes a while, and a page at its end still yields what it built.
  const takeBy = job.deadlineAt - Math.min(3000, Math.max(300, (job.deadlineAt - job.now()) / 5));
  const hard = deadline(job.deadlineAt, job.now);
  let phase = "context";
  try {
    context = await Promise.race([
      browser.newContext({
        serviceWorkers: "block",
        acceptDownloads: false,
        permissions: [],
        userAgent: job.userAgent,
        viewport: { width: 1280, height: 800 },
        javaScriptEnabled: true,
      }),
      hard.promise,
    ]);
    await context.route("**/*", (route) => answer(route, job));
    phase = "page";
    const page = await context.newPage();
    const crashed = new Promise<never>((_, reject) => page.on("crash", () => reject(new CrashError())));
    crashed.catch(() => {});
    const stop = Promise.race([hard.promise, crashed]);
    let timedOut = false;
    try {
      phase = "load";
      await Promise.race([page.goto(job.url, { waitUntil: "load", timeout: Math.max(1, takeBy - job.now()) }), stop]);
      phase = "settle";
      await Promise.race([settle(job, takeBy), stop]);
    } catch (error) {
      if (error instanceof CrashError || error instanceof DeadlineError) throw error;
      timedOut = true; // the load did not finish in time: the DOM as it stands is what is taken
    }
    if (job.now() >= takeBy) timedOut = true;
    phase = "dom";
    const dom = await Promise.race([page.content(), stop]);
    const screenshot = job.screenshot
      ? new Uint8Array(await Promise.race([page.screenshot({ type: "png", timeout: 5000 }), stop]))
      : undefined;
    return { kind: "rendered", dom, timedOut, ...(screenshot ? { screenshot } : {}) };
  } catch (error) {
    if (error instanceof CrashError) return { kind: "failed", reason: "crashed", message: error.message };
    if (error instanceof DeadlineError) return { kind: "failed", reason: "deadline", message: `${error.message} (${phase})` };
    return { kind: "failed", reason: "browser", message: (error as Error).message };
  } finally {
    hard.cancel();
    await context?.close().catch(() => {});
  }
}

/** Waits until no routed request is in flight for `settleMs`, or `until`. */
async function settle(job: RenderJob, until: number): Promise<void> {
  for (;;) {
    const now = job.now();
    if (now >= until) return;
    const quietFor = now - job.router.lastActivityAt;
    if (job.router.inFlight === 0 && quietFor >= job.settleMs) return;
    await new Promise((r) => setTimeout(r, Math.min(50, until - now)));
  }
}

async function answer(route: Route, job: RenderJob): Promise<void> {
  const req = route.request();
  const frame = req.frame();
  let mainFrameNavigation = false;
  try {
    mainFrameNavigation = req.isNavigationRequest() && frame.parentFrame() === null;
  } catch {
    // a request of a service worker or a frame already gone: not a navigation of the page
  }
  const a = await job.router.answer({ url: req.url(), method: req.method(), resourceType: req.resourceType(), mainFrameNavigation });
  try {
    if (a.kind === "fulfill") {
      await route.fulfill({ status: a.response.status, headers: a.response.headers, body: Buffer.from(a.response.body) });
    } else {
      await route.abort(a.reason === "media" || a.reason === "tracker" ? "blockedbyclient" : "failed");
    }
  } catch {
    // the page or its context closed meanwhile: nothing to answer
  }
}
