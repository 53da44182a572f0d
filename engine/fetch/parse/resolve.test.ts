import { expect, test } from "bun:test";
import { parseBase, resolveHttpUrl } from "./resolve.ts";

/** What the WHATWG parser alone answers, the reference the fast path must equal. */
function byParser(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    url.hash = "";
    return url.href;
  } catch {
    return undefined;
  }
}

const BASES = [
  "https://example.com/dir/page.html",
  "http://EXAMPLE.com:8080/a/b/",
  "https://xn--nxasmq6b.example/",
  "ftp://files.example/x",
  "http://user:pw@example.com/a/",
  "https://user@example.com:8443/",
];
const HREFS = [
  "/img/a-480.jpg",
  "/",
  "/a/b/c",
  "/a//b",
  "//cdn.example.net/x.jpg",
  "/./a",
  "/a/./b",
  "/a/../b",
  "/a/..",
  "/a/.",
  "/.hidden/x",
  "/a..b/c.",
  "/%2e%2e/x",
  "/a%20b",
  "/a b",
  "/a?x=1",
  "/a#frag",
  "/a\\b",
  "/ünï",
  "/a'b(c)*d!e$f&g+h,i;j=k:l@m~n",
  "/a{b}",
  "/a|b",
  "/a`b",
  "/a^b",
  "/a\tb",
  "relative.jpg",
  "../up.jpg",
  "https://other.example/x",
  "javascript:alert(1)",
  "data:image/png;base64,AAAA",
];

test("resolve - the fast path for plain root-relative paths answers exactly what the URL parser answers", () => {
  for (const base of BASES) {
    const parsed = parseBase(base);
    for (const href of HREFS) expect({ base, href, url: resolveHttpUrl(href, parsed) }).toEqual({ base, href, url: byParser(href, base) });
  }
});

test("resolve - a base that does not parse resolves nothing", () => {
  expect(parseBase("not a url")).toBeUndefined();
  expect(resolveHttpUrl("/a", undefined)).toBeUndefined();
});
