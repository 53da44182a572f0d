/**
 * Property tests of `normalizeUrl` over a generated corpus of tricky URLs: odd scheme and host case, IDN,
 * trailing dots, numeric and IPv6 hosts, default ports with leading zeros, dot segments (plain and
 * encoded), stray and double-encoded percent signs, trackers, empty query pieces and fragments, plus
 * relative links against such URLs. The generator is seeded, so a failure names an input that reproduces.
 */
import { describe, expect, test } from "bun:test";
import { isHomePage, normalizeUrl } from "./index.ts";
import { isTrackingParam } from "./tracking-params.ts";

const SCHEMES = ["http", "https", "HTTP", "HtTpS", " http", "http\t"];
const USERINFO = ["", "", "", "", "user@", "User:P%41ss@", "@", "a:b@", "u%7e:@"];
const HOSTS = [
  "example.com",
  "ExAmple.COM",
  "example.com.",
  "example.com..",
  "bücher.de",
  "BÜCHER.DE.",
  "faß.de",
  "xn--bcher-kva.de",
  "0x7f.1..",
  "1.2.3.4.",
  "2130706433",
  "[::1]",
  "[0:0::FFFF:1.2.3.4]",
  "%41.com",
  "a-b.c-d.example",
  "sub.ÉXAMPLE.org",
  "1.2.3",
  "localhost",
  "192.168.0.1",
  "münchen.de",
  "www.EXAMPLE.co.uk",
];
const PORTS = ["", "", "", ":80", ":443", ":0080", ":8080", ":", ":00443"];
const SEGMENTS = [
  "a",
  "A",
  ".",
  "..",
  "%2e",
  "%2E%2e",
  ".%2E",
  "%2e%2e%2e",
  "%2e.",
  "%2e%2e%2f",
  "%41",
  "%7e",
  "%7E",
  "~",
  "%2f",
  "%2F",
  "%",
  "%%34",
  "%4%31",
  "%zz",
  "%25",
  "%2541",
  "a b",
  "ü",
  "index.html",
  "",
  "\\",
  "a%20b",
  '"',
  "<x>",
  "%c3%bc",
  "é",
  ";p=1",
  ":",
  "@",
  "+",
  "!$&'()*,=",
  "%g%41",
  "%a%62",
];
const PARAMS = [
  "a=1",
  "b",
  "B=2",
  "utm_source=x",
  "UTM_Medium=y",
  "utm%5Fterm=z",
  "gclid=1",
  "%67clid=2",
  "fbclid",
  "q=a+b",
  "q=a%20b",
  "q=a b",
  "u=http://x/y?z",
  "",
  "=",
  "=v",
  "%61=1",
  "x=%7e",
  "x=%2541",
  "x=%",
  "x=%%34",
  "ü=é",
  "'",
  "c=%2f",
  "_ga=1",
  "mc_eid=2",
  "z=1;y=2",
  "a=2",
  "%4%31=1",
];
const FRAGMENTS = ["", "", "", "#", "#frag", "#a?b=c", "#%41"];
const RELATIVE = ["x", "../x", "?b&a=1", "#f", "//Other.example./p", "/root?utm_source=1", "%2e%2e/x", "./%7e/", "..", "?"];

/** mulberry32: a tiny seeded generator, so the corpus is the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Case = { input: string; base?: string };

function corpus(size: number): Case[] {
  const random = seeded(0x5eed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const absolute = (): string => {
    let path = "";
    const depth = Math.floor(random() * 4);
    for (let i = 0; i < depth; i++) path += "/" + pick(SEGMENTS);
    let query = "";
    const r = random();
    if (r < 0.15) query = "?";
    else if (r < 0.7) {
      const count = 1 + Math.floor(random() * 4);
      const params: string[] = [];
      for (let i = 0; i < count; i++) params.push(pick(PARAMS));
      query = "?" + params.join("&");
    }
    return `${pick(SCHEMES)}://${pick(USERINFO)}${pick(HOSTS)}${pick(PORTS)}${path}${query}${pick(FRAGMENTS)}`;
  };
  const cases: Case[] = [];
  for (let i = 0; i < size; i++) {
    if (random() < 0.2) cases.push({ input: pick(RELATIVE) + (random() < 0.5 ? pick(SEGMENTS) : ""), base: absolute() });
    else cases.push({ input: absolute() });
  }
  return cases;
}

const CASES = corpus(20_000);
const label = (c: Case) => JSON.stringify(c);

describe("normalizeUrl - properties over a generated corpus", () => {
  test("the corpus is mostly accepted, so the properties below are exercised", () => {
    const accepted = CASES.filter((c) => normalizeUrl(c.input, c.base).ok).length;
    expect(accepted).toBeGreaterThan(CASES.length * 0.8);
  });

  test("normalizing a normalized URL changes nothing", () => {
    for (const c of CASES) {
      const once = normalizeUrl(c.input, c.base);
      if (!once.ok) continue;
      const twice = normalizeUrl(once.url);
      if (!twice.ok || twice.url !== once.url || twice.host !== once.host) {
        throw new Error(`not idempotent for ${label(c)}: ${JSON.stringify(once)} then ${JSON.stringify(twice)}`);
      }
    }
  });

  test("the returned host is the hostname the URL class reads from the result", () => {
    for (const c of CASES) {
      const result = normalizeUrl(c.input, c.base);
      if (result.ok && new URL(result.url).hostname !== result.host) {
        throw new Error(`host mismatch for ${label(c)}: ${JSON.stringify(result)}`);
      }
    }
  });

  test("a normalized URL has no fragment, no trailing dot on its host and no default port", () => {
    for (const c of CASES) {
      const result = normalizeUrl(c.input, c.base);
      if (!result.ok) continue;
      const url = new URL(result.url);
      // Read the port from the string itself: the URL class would hide a default port anyway.
      const start = url.protocol.length + 2;
      const authority = result.url.slice(start, result.url.indexOf("/", start));
      const defaultPort = url.protocol === "http:" ? ":80" : ":443";
      const fine = !result.url.includes("#") && !url.hostname.endsWith(".") && !authority.endsWith(defaultPort) && !authority.endsWith(":");
      if (!fine) throw new Error(`not normalized for ${label(c)}: ${result.url}`);
    }
  });

  test("a normalized path and query hold no lower-case hex escape and no tracking parameter", () => {
    for (const c of CASES) {
      const result = normalizeUrl(c.input, c.base);
      if (!result.ok) continue;
      const url = new URL(result.url);
      const tail = url.pathname + url.search;
      const names = url.search
        .slice(1)
        .split("&")
        .map((p) => p.split("=")[0]!);
      if (/%(?:[0-9a-f][a-f]|[a-f][0-9a-f])/.test(tail) || names.some(isTrackingParam)) {
        throw new Error(`escapes or trackers left for ${label(c)}: ${result.url}`);
      }
    }
  });

  test("isHomePage agrees with the parsed path and query", () => {
    for (const c of CASES) {
      const result = normalizeUrl(c.input, c.base);
      if (!result.ok) continue;
      const url = new URL(result.url);
      expect(isHomePage(result.url)).toBe(url.pathname === "/" && url.search === "");
    }
  });

  test("normalizeUrl never throws on the corpus or on its inputs cut short", () => {
    for (const c of CASES.slice(0, 2000)) {
      for (let end = 0; end <= c.input.length; end += 3) {
        expect(() => normalizeUrl(c.input.slice(0, end), c.base)).not.toThrow();
      }
    }
  });
});
