/**
 * What both dashboard tests do in the browser, against the page of `crawl --http` or of the coordinator:
 * sign in, read the live figures, search a host, and check that a wrong token is refused. Every wait is on
 * a condition in the page (Playwright's waitForFunction / waitForSelector), never a fixed sleep.
 */
import { expect } from "bun:test";
import type { Page } from "playwright-core";

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
  await page.waitForFunction(() => document.getElementById("pages-total")?.textContent !== "–");
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
  await page.waitForFunction((n) => Number((document.getElementById("pages-total")?.textContent ?? "").replace(/[^0-9]/g, "")) > n, than, {
    timeout: 120_000,
  });
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
  await page.waitForFunction(() => (document.getElementById("login-error")?.textContent ?? "").includes("refused"));
  expect(await page.isHidden("#main")).toBe(true);
  expect(await page.textContent("#pages-total")).toBe("–");
  expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBeNull();
}

/** The rows of a table on the page, as cell texts. */
export function tableRows(page: Page, id: string): Promise<string[][]> {
  return page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")));
}
