/**
 * The render pool: one headless Chromium (Debian's, driven by playwright-core; never a browser a tool
 * downloads) and at most `size` pages rendering at once, each in a fresh context (render-page.ts).
 *
 * - Launched on the first render, not at start, so a crawl that never renders never starts a browser.
 * - A browser that disconnects (crashed, killed) is relaunched on the next render; the renders it was
 *   running fail (`render.failures.browser`), and the restart is counted (`restarts`).
 * - Past `memoryCapBytes` (the browser and all its processes, checked at most every 2 s after a render)
 *   the pool stops taking renders, lets the running ones finish, closes the browser and starts a new one.
 * - Each tab's script heap is capped (`--js-flags=--max-old-space-size`), so a page that eats memory
 *   crashes its own tab rather than the machine.
 *
 * Memory: one Chromium (~150 MB idle on this kind of machine) plus ~30-80 MB per page rendering
 * (bench/render.bench.ts measures it). The pool holds no per-page state after a render.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { pidWithArgument, treeRssBytes } from "./browser-memory.ts";
import { renderPage, type RenderJob, type RenderOutcome } from "./render-page.ts";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

export interface RenderPoolOptions {
  /** Pages rendering at once. */
  size: number;
  /** The Chromium binary. */
  executablePath?: string;
  /** The browser is restarted once it (with its child processes) holds more than this. */
  memoryCapBytes: number;
  /** Script heap of one tab, in MiB. */
  tabHeapMiB?: number;
  onEvent?: (event: "launch" | "restart" | "memory-restart", detail?: string) => void;
}

/** The pool's state for stats, /metrics and the dashboard. */
export interface RenderPoolStats {
  size: number;
  rendering: number;
  renders: number;
  failures: number;
  restarts: number;
  browserBytes: number;
}

/** Chromium cannot be used: the message says how to install it. */
export class ChromiumMissingError extends Error {
  constructor(path: string) {
    super(`${path} is missing: rendering needs Chromium (apt-get install -y chromium), or --render never`);
    this.name = "ChromiumMissingError";
  }
}

/** Whether this machine has the Chromium rendering needs (a fetch node announces it). */
export function hasChromium(path = DEFAULT_CHROMIUM): boolean {
  return existsSync(path);
}

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--mute-audio",
  "--disable-features=MediaRouter,OptimizationHints,Translate",
];

export class RenderPool {
  private browser: Promise<Browser> | undefined;
  private readonly marker = `--crawler-render-pool=${crypto.randomUUID()}`;
  private rendering = 0;
  private readonly waiters: Array<() => void> = [];
  private retiring: Promise<void> | undefined;
  private launched = 0;
  private lastMemoryCheck = 0;
  private unreportedRestarts = 0;
  private closed = false;
  readonly stats: RenderPoolStats;

  constructor(private readonly opts: RenderPoolOptions) {
    this.stats = { size: opts.size, rendering: 0, renders: 0, failures: 0, restarts: 0, browserBytes: 0 };
  }

  /**
   * Renders one page; never rejects (a failure is an outcome). `start` makes the job once a slot is free
   * and the browser is up: the page's deadline runs from there, not while it waited for the pool.
   */
  async render(start: () => RenderJob): Promise<RenderOutcome> {
    await this.acquire();
    try {
      const browser = await this.browserNow();
      const outcome = await renderPage(browser, start());
      if (outcome.kind === "rendered") this.stats.renders++;
      else this.stats.failures++;
      return outcome;
    } catch (error) {
      this.stats.failures++;
      return { kind: "failed", reason: "browser", message: (error as Error).message };
    } finally {
      this.release();
      this.checkMemory();
    }
  }

  /** Restarts since the last call: each is reported once, with the render that followed it (render.browser-restarts). */
  takeRestarts(): number {
    const n = this.unreportedRestarts;
    this.unreportedRestarts = 0;
    return n;
  }

  /** The browser process's pid, while one runs (tests kill it; /metrics reads its memory). */
  browserPid(): number | undefined {
    return pidWithArgument(this.marker);
  }

  async close(): Promise<void> {
    this.closed = true;
    const b = this.browser;
    this.browser = undefined;
    if (b) await (await b.catch(() => undefined))?.close().catch(() => {});
  }

  private async acquire(): Promise<void> {
    for (;;) {
      if (this.retiring) await this.retiring;
      if (this.rendering < this.opts.size) break;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.rendering++;
    this.stats.rendering = this.rendering;
  }

  private release(): void {
    this.rendering--;
    this.stats.rendering = this.rendering;
    this.waiters.shift()?.();
  }

  private browserNow(): Promise<Browser> {
    if (this.closed) return Promise.reject(new Error("render pool closed"));
    if (this.browser) return this.browser;
    const launching = this.launch();
    this.browser = launching;
    launching.then(
      (b) =>
        b.on("disconnected", () => {
          // Crashed or killed: the next render starts a new one (a planned close has already moved on).
          if (this.browser === launching) this.browser = undefined;
        }),
      () => {
        if (this.browser === launching) this.browser = undefined;
      },
    );
    return launching;
  }

  private async launch(): Promise<Browser> {
    const path = this.opts.executablePath ?? DEFAULT_CHROMIUM;
    if (!existsSync(path)) throw new ChromiumMissingError(path);
    const heap = this.opts.tabHeapMiB ?? 256;
    const attempt = chromium.launch({
      executablePath: path,
      headless: true,
      args: [...FLAGS, `--js-flags=--max-old-space-size=${heap}`, this.marker],
      timeout: 60_000,
    });
    const browser = await attempt;
    if (this.launched++ > 0) {
      this.stats.restarts++;
      this.unreportedRestarts++;
      this.opts.onEvent?.("restart");
    } else {
      this.opts.onEvent?.("launch");
    }
    return browser;
  }

  /** Past the cap: no new render starts, the running ones finish, the browser is replaced. */
  private checkMemory(): void {
    const now = Date.now();
    if (this.retiring || now - this.lastMemoryCheck < 2000) return;
    this.lastMemoryCheck = now;
    const pid = this.browserPid();
    const bytes = pid === undefined ? 0 : treeRssBytes(pid);
    this.stats.browserBytes = bytes;
    if (bytes <= this.opts.memoryCapBytes || !this.browser) return;
    const old = this.browser;
    this.retiring = (async () => {
      while (this.rendering > 0) await new Promise((r) => setTimeout(r, 50));
      this.browser = undefined;
      await (await old.catch(() => undefined))?.close().catch(() => {});
      this.opts.onEvent?.("memory-restart", `${bytes} bytes`);
    })().finally(() => {
      this.retiring = undefined;
      for (const w of this.waiters.splice(0)) w();
    });
  }
}
