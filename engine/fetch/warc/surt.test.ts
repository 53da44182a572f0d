import { describe, expect, test } from "bun:test";
import { getSurt } from "warcio";
import { surt } from "./surt.ts";
import { nextSequence, timestamp14, warcFileName } from "./file-naming.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("surt", () => {
  test("surt - reverses host labels and closes them with a parenthesis", () => {
    expect(surt("http://example.com/path")).toBe("com,example)/path");
    expect(surt("https://a.b.example.co.uk/")).toBe("uk,co,example,b,a)/");
  });

  test("surt - drops www, default ports and the fragment, keeps other ports", () => {
    expect(surt("http://www.example.com")).toBe("com,example)/");
    expect(surt("https://www2.example.com:443/x#frag")).toBe("com,example)/x");
    expect(surt("http://example.com:8080/x")).toBe("com,example:8080)/x");
  });

  test("surt - lower-cases and sorts query arguments", () => {
    expect(surt("HTTP://Example.COM/Path?b=2&A=1")).toBe("com,example)/path?a=1&b=2");
  });

  test("surt - returns non-http URLs unchanged", () => {
    expect(surt("mailto:someone@example.com")).toBe("mailto:someone@example.com");
    expect(surt("not a url")).toBe("not a url");
  });

  test("surt - agrees with warcio's getSurt", () => {
    const urls = [
      "http://example.com/",
      "https://www.example.com/a/b/c.html?z=9&a=1&m",
      "http://www3.sub.example.org:81/%7Euser/?q=%20x",
      "https://example.com/path;params?x=1&x=0",
      "http://192.168.0.1/admin",
      "https://xn--bcher-kva.example/ü?ä=1",
      "http://example.com/?",
    ];
    for (const url of urls) expect(surt(url)).toBe(getSurt(url));
  });
});

describe("file naming", () => {
  test("file naming - formats prefix, UTC timestamp and a five-digit sequence", () => {
    const at = Date.UTC(2025, 11, 31, 23, 59, 58);
    expect(timestamp14(at)).toBe("20251231235958");
    expect(warcFileName("crawl", at, 7)).toBe("crawl-20251231235958-00007.warc.gz");
    expect(warcFileName("crawl", at, 123456)).toBe("crawl-20251231235958-123456.warc.gz");
  });

  test("file naming - continues after the highest sequence of the same prefix only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "warc-names-"));
    try {
      expect(await nextSequence(dir, "crawl")).toBe(1);
      for (const n of [
        "crawl-20240101000000-00003.warc.gz",
        "crawl-20230101000000-00011.warc.gz",
        "other-20240101000000-00099.warc.gz",
        "crawl-x.warc.gz",
        "index.cdxj",
      ]) {
        await writeFile(join(dir, n), "");
      }
      expect(await nextSequence(dir, "crawl")).toBe(12);
      expect(await nextSequence(dir, "other")).toBe(100);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
