/**
 * Hosts for scope and filters: `www.scope.test` links its own pages, files a page crawl should not fetch
 * (an archive, an upper-case `.JPG`), a PDF (fetched: not on the default deny-list), a `/print/` page for
 * URL patterns, a chain `/d/1` → `/d/2` → … for the depth limit, and three other hosts: `blog.scope.test`
 * and `shop.scope.test` (the same registrable domain, `scope.test`) and `outside.test` (another domain).
 * Which of them a crawl seeded at `http://www.scope.test/` fetches is the scope's doing: all with
 * `--scope any`, blog and shop too with `--scope domain`, only www with `--scope host`. In a cluster of two
 * frontier nodes (`frontier-1`, `frontier-2`, 64 partitions) www and blog belong to the first and shop to
 * the second, which must learn the seed's domain from the cluster state.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

/** The depth of the deepest `/d/N` page: /d/N is N links from the seed. */
export const SCOPE_CHAIN = 6;

export function scopeHosts(): Record<string, HostBehaviour> {
  const chain = Object.fromEntries(
    Array.from({ length: SCOPE_CHAIN }, (_, i) => [
      `/d/${i + 1}`,
      page(`depth ${i + 1}`, i + 1 < SCOPE_CHAIN ? linkList([`/d/${i + 2}`]) : ""),
    ]),
  );
  const file = (type: string) => (_q: unknown, res: import("node:http").ServerResponse) => send(res, 200, "binary bytes\n", type);
  return {
    "www.scope.test": routedHost({
      description:
        "links /a, /files/archive.zip, /files/photo.JPG, /files/doc.pdf, /print/a, /d/1 (→ /d/2 … /d/6), blog.scope.test, shop.scope.test and outside.test",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page(
          "scope",
          linkList([
            "/a",
            "/files/archive.zip",
            "/files/photo.JPG",
            "/files/doc.pdf",
            "/print/a",
            "/d/1",
            "http://blog.scope.test/",
            "http://shop.scope.test/",
            "http://outside.test/",
          ]),
        ),
        "/a": page("a", linkList(["/"])),
        "/print/a": page("print a", ""),
        "/files/archive.zip": file("application/zip"),
        "/files/photo.JPG": file("image/jpeg"),
        "/files/doc.pdf": file("application/pdf"),
        ...chain,
      },
      mustFetch: ["/", "/a", "/files/doc.pdf", "/print/a", ...Object.keys(chain)],
      mustNotFetch: ["/files/archive.zip", "/files/photo.JPG"],
    }),
    "blog.scope.test": routedHost({
      description: "the same registrable domain as www.scope.test; links /post/1 and back",
      robots: PLAIN_ROBOTS,
      routes: { "/": page("blog", linkList(["/post/1", "http://www.scope.test/a"])), "/post/1": page("post", "") },
      mustFetch: ["/", "/post/1"],
    }),
    "shop.scope.test": routedHost({
      description: "the same registrable domain as www.scope.test, on another frontier node in a two-node cluster; links /item/1",
      robots: PLAIN_ROBOTS,
      routes: { "/": page("shop", linkList(["/item/1"])), "/item/1": page("item", "") },
      mustFetch: ["/", "/item/1"],
    }),
    "outside.test": routedHost({
      description: "another registrable domain, linked from www.scope.test",
      robots: PLAIN_ROBOTS,
      routes: { "/": page("outside", linkList(["/x"])), "/x": page("x", "") },
      mustFetch: ["/", "/x"],
    }),
  };
}
