/**
 * What both dashboard tests do in the browser, against the page of `crawl --http` or of the coordinator:
 * sign in, read the live figures, search a host, and check that a wrong token is refused. Every wait is on
 * a condition in the page, never a fixed sleep: Playwright's selector waits (`:has-text()`), or the page's
 * text read from the test and polled. Not `waitForFunction`: it evaluates its predicate with `eval` inside
 * the page, which the dashboard's strict Content-Security-Policy forbids (and must keep forbidding).
 */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { waitUntil } from "../cluster/processes.ts";

const TOKEN_KEY = "crawler.dashboard.token";

/** Opens the page and signs in with `token` (when the page asks), until the dashboard shows data. */
export async function signIn(page: Page, dashboardUrl: string, token: string | undefined): Promise<void> {
  await page.goto(dashboardUrl);
  if (token !== undefined) {
    await page.waitForSelector("#login:not([hidden])");
    await page.fill("#token", token);
    await page.click("#login-form button[type=submit]");
  }
  await page.waitForSelector("#main:not([hidden])");
  await waitForPage(page, "the dashboard's first figures", async () => (await page.textContent("#pages-total")) !== "–");
  // The token lives in this tab's session storage, never in the URL or in persistent storage.
  expect(page.url()).toBe(dashboardUrl);
  if (token !== undefined) {
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBe(token);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  }
}

/** The number a tile shows (`1,234` → 1234). */
export async function tile(page: Page, id: string): Promise<number> {
  const text = (await page.textContent(`#${id}`)) ?? "";
  return Number(text.replace(/[^0-9.]/g, ""));
}

/** Waits until the pages tile shows more than `than`: the page is live while the crawl runs. */
export async function waitForPagesAbove(page: Page, than: number): Promise<number> {
  await waitForPage(page, `the pages tile to exceed ${than}`, async () => (await tile(page, "pages-total")) > than);
  return tile(page, "pages-total");
}

/** Searches a host in the host box and returns the fields the page shows. */
export async function searchHost(page: Page, host: string): Promise<Record<string, string>> {
  await page.fill("#host-query", host);
  await page.click("#host-search button[type=submit]");
  await page.waitForSelector("#host-result dl");
  return page.$$eval("#host-result dd", (dds) =>
    Object.fromEntries(dds.map((d) => [d.getAttribute("data-field") ?? "", d.textContent ?? ""])),
  );
}

/** Explains a URL in the URL box and returns the fields the page shows. */
export async function explainUrl(page: Page, url: string): Promise<Record<string, string>> {
  await page.fill("#url-query", url);
  await page.click("#url-search button[type=submit]");
  await page.waitForSelector("#url-result dl");
  return page.$$eval("#url-result dd", (dds) =>
    Object.fromEntries(dds.map((d) => [d.getAttribute("data-field") ?? "", d.textContent ?? ""])),
  );
}

/** Signs in with a wrong token: the page must say it was refused and show no data. */
export async function expectWrongTokenRefused(page: Page, dashboardUrl: string): Promise<void> {
  await page.goto(dashboardUrl);
  await page.waitForSelector("#login:not([hidden])");
  await page.fill("#token", "wrong-token-0000000000000");
  await page.click("#login-form button[type=submit]");
  await waitForText(page, "login-error", "refused", 60_000);
  expect(await page.isHidden("#main")).toBe(true);
  expect(await page.textContent("#pages-total")).toBe("–");
  expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBeNull();
}

/** Waits until the text of element `id` contains `text` (case-insensitive, as Playwright's `:has-text()`). */
export async function waitForText(page: Page, id: string, text: string, timeout = 120_000): Promise<void> {
  await page.waitForSelector(`#${id}:has-text(${JSON.stringify(text)})`, { state: "attached", timeout });
}

/** Polls `check` (which reads the page from the test) until it holds; a throw counts as "not yet". */
export async function waitForPage(page: Page, what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  await waitUntil(check, { timeoutMs, what, intervalMs: 250, detail: async () => `status line: ${await page.textContent("#status")}` });
}

/** The rows of a table on the page, as cell texts. */
export function tableRows(page: Page, id: string): Promise<string[][]> {
  return page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")));
}
