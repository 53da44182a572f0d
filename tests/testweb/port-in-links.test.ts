/**
 * `portInLinks`: a test web dialled directly, one loopback address per host and no proxy (the crawl bench's
 * --direct), must give every absolute link its port, or a crawler following them would knock on port 80.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { directGet } from "./client.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import { siteLinks } from "./site.ts";

let web: TestWeb;
beforeAll(async () => {
  web = await startTestWeb({ hosts: 3, addresses: ["127.1.0.1", "127.1.0.2", "127.1.0.3"], portInLinks: true });
});
afterAll(() => web.close());

test("every absolute link and url() carry the listening port; relative links stay relative", async () => {
  expect(web.url("site1.test")).toBe(`http://site1.test:${web.port}/`);
  const links = [...siteLinks(web.shape, "site1.test", "/"), ...siteLinks(web.shape, "site1.test", "/page/4")];
  for (const link of links) expect(link.url.startsWith(`http://site`) && link.url.includes(`.test:${web.port}/`)).toBe(true);
  const absolute = links.filter((l) => /^http:/i.test(l.href));
  expect(absolute.length).toBeGreaterThan(0);
  for (const link of absolute) expect(link.href.toLowerCase()).toContain(`.test:${web.port}/`);
  // Served as generated, to a client that came to the host's own address.
  const r = await directGet(`http://127.1.0.2:${web.port}`, `site1.test:${web.port}`, "/");
  expect(r.status).toBe(200);
  for (const link of absolute) expect(r.body.toString()).toContain(`href="${link.href}"`);
  expect(web.requests.at(-1)).toMatchObject({ host: "site1.test", path: "/", via: "direct", localAddress: "127.1.0.2" });
  // The expected set walks the same links: every page it names is on the port.
  const expected = web.expectedPages([web.url("site0.test")]);
  expect(expected.pages.size).toBeGreaterThan(1);
  for (const page of expected.pages) expect(new URL(page).port).toBe(String(web.port));
});

test("without portInLinks the links name no port, as through a proxy", async () => {
  const plain = await startTestWeb({ hosts: 3 });
  try {
    expect(plain.shape.port).toBeUndefined();
    expect(plain.url("site1.test")).toBe("http://site1.test/");
    for (const link of siteLinks(plain.shape, "site1.test", "/")) expect(new URL(link.url).port).toBe("");
  } finally {
    await plain.close();
  }
});
