/**
 * A real browser for the dashboard tests: Debian's Chromium (`/usr/bin/chromium`, installed by .ci/run;
 * never a browser a tool downloads) driven by npm playwright-core through `executablePath`, headless, with
 * the flags this kind of machine needs and a fresh profile directory per launch. A missing Chromium fails
 * the test with the command that installs it. Every page records its console errors and uncaught
 * exceptions (`errors`), so a test can assert there were none; screenshots go under .out/screenshots/
 * (gitignored), the test's artefacts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOT_DIR = resolve(import.meta.dir, "../../.out/screenshots");
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions seen so far, as text. */
  errors: string[];
}

export interface Browser {
  open(): Promise<WatchedPage>;
  /** Saves the whole page (or, with `fullPage: false`, the window) as .out/screenshots/NAME.png; returns its path. */
  screenshot(page: Page, name: string, opts?: { fullPage?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the dashboard tests need Debian's Chromium (apt-get install -y chromium; .ci/run installs it)`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "crawler-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1400, height: 1000 },
      timeout: 120_000,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  // The machine is shared and slow at times: waits are on conditions, with room for a loaded box.
  context.setDefaultTimeout(60_000);
  return {
    async open() {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
      return { page, errors };
    },
    async screenshot(page, name, opts = {}) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: opts.fullPage ?? true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
