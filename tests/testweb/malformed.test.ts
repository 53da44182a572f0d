import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Parser } from "htmlparser2";
import { proxyGet } from "./client.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import { MALFORMED_LINKS } from "./special/index.ts";

/** Links as an HTML parser sees them: `<base href>` honoured, script and comments not markup. */
function extract(html: string, pageUrl: string): string[] {
  let base = pageUrl;
  const hrefs: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "base" && attrs.href !== undefined && base === pageUrl) base = new URL(attrs.href, pageUrl).href;
        if (name === "a" && attrs.href !== undefined) hrefs.push(attrs.href);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  const out: string[] = [];
  for (const h of hrefs) {
    const u = new URL(h.trim(), base);
    if (u.protocol !== "http:") continue;
    u.searchParams.sort();
    out.push(u.href);
  }
  return out;
}

describe("malformed.test", () => {
  let web: TestWeb;
  beforeAll(async () => {
    web = await startTestWeb({ hosts: 0, special: true });
  });
  afterAll(() => web.close());

  test("declares exactly the links an independent HTML parser finds on its home page", async () => {
    const r = await proxyGet(web.proxyUrl, "http://malformed.test/");
    const links = extract(new TextDecoder().decode(r.body), "http://malformed.test/");
    expect(links).toEqual([...MALFORMED_LINKS]);
  });

  test("serves every declared link", async () => {
    for (const url of MALFORMED_LINKS) expect((await proxyGet(web.proxyUrl, url)).status).toBe(200);
  });
});
