/**
 * Rendering, end to end on `crawl` against the test web's `render.test` (tests/testweb/special/render.ts):
 * links that exist only once the home page's scripts have run (written by the script, loaded as JSON by
 * fetch and by XHR) are found and crawled with `--render auto`, and never without it. Every request the
 * browser made is in the test web's log and passes the strict politeness checker (the harness judges each
 * crawl: 0 violations, robots.txt before anything of a host); nothing robots.txt forbids, no image or
 * font, and nothing of another host was asked for. A page that never finishes loading gives the links it
 * had built by the deadline; a page that crashes its tab gives none and the crawl goes on. The rendered
 * DOM is stored as a conversion record referring to the page's response.
 */
import { describe, expect, test } from "bun:test";
import { RENDERED_LINKS } from "../../testweb/index.ts";
import { readFileSync } from "node:fs";
import { checkWetFiles, wetPathOf } from "../../support/stored-captures.ts";
import { gzipMembers, parseWarcRecord } from "../../support/warc-bytes.ts";
import { crawlArgs, expectCleanExit, pageRequests, readAllRecords, useHarness, warcFiles } from "./harness.ts";

const h = useHarness();
const HOST = "render.test";

describe("crawl: rendering", () => {
  test("without --render the links scripts make are never found", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const exit = await h.crawl(crawlArgs(web, [web.url(HOST)], out)).waitExit(30_000);
    expectCleanExit(exit);
    const paths = pageRequests(web, [HOST]).map((r) => r.path);
    expect(paths).toEqual(["/"]);
    expect(web.requestsTo("render-cdn.test")).toEqual([]);
  }, 40_000);

  test("with --render auto they are found and crawled, and every request of the browser was polite", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(HOST)], out, ["--render", "auto", "--render-timeout", "6s", "--render-pool", "2"]), {
      out,
    });
    const exit = await run.waitExit(120_000);
    expectCleanExit(exit);
    const paths = new Set(pageRequests(web, [HOST]).map((r) => r.path));
    for (const link of RENDERED_LINKS) expect({ link, fetched: paths.has(link) }).toEqual({ link, fetched: true });
    // The scripts' own requests: the script and both JSON files, once each (a second render takes them from the cache).
    for (const sub of ["/app.js", "/api/items.json", "/api/more.json"]) {
      expect({ sub, times: web.requestsTo(HOST).filter((r) => r.path === sub).length }).toEqual({ sub, times: 1 });
    }
    // The page that never loads gave its link at the deadline; the one that crashed its tab gave none.
    expect(paths.has("/from-never-loads")).toBe(true);
    expect(paths.has("/from-crash")).toBe(false);
    // Never asked: what robots.txt forbids, images and fonts, another host's script.
    for (const never of ["/private/tracker.js", "/img/logo.png", "/fonts/x.woff2"]) expect(paths.has(never)).toBe(false);
    expect(web.requestsTo("render-cdn.test")).toEqual([]);
    // Each page once: the home page was served to the browser from memory, not fetched again.
    expect(web.requestsTo(HOST).filter((r) => r.path === "/").length).toBe(1);

    const records = await readAllRecords(out);
    const home = web.url(HOST);
    const response = records.find((r) => r.type === "response" && r.url === home)!;
    const conversion = records.find((r) => r.type === "conversion" && r.url === home)!;
    expect(conversion.warcHeaders["WARC-Refers-To"]).toBe(response.warcHeaders["WARC-Record-ID"]);
    const dom = new TextDecoder().decode(conversion.payload);
    expect(dom).toContain('href="/item/3"');
    expect(new TextDecoder().decode(response.payload)).not.toContain("/item/3");
    // The page's one WET record keeps the text a reader of the page sees: the rendered DOM's (the HTML as
    // sent is an empty shell, with only its title for text).
    expect(checkWetFiles(warcFiles(out)).problems).toEqual([]);
    const texts = warcFiles(out).flatMap((f) =>
      gzipMembers(new Uint8Array(readFileSync(wetPathOf(f))))
        .map((m) => parseWarcRecord(m.data))
        .filter((r) => r.get("WARC-Type") === "conversion" && r.get("WARC-Target-URI") === home)
        .map((r) => new TextDecoder().decode(r.block)),
    );
    expect(texts.length).toBe(1);
    expect(texts[0]).toContain("/item/3");
  }, 150_000);

  test("rendering without Chromium is a configuration error at start, saying how to install it", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const exit = await h
      .crawl(crawlArgs(web, [web.url(HOST)], out, ["--render", "auto", "--chromium", "/nonexistent/chromium"]))
      .waitExit(30_000);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("apt-get install -y chromium");
    expect(web.requestsTo(HOST)).toEqual([]);
  }, 40_000);
});
