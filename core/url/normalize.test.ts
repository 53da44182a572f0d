/**
 * Rule-by-rule tests of normalizeUrl through the package face: schemes, rejections and their reasons, host, port, path, fragment, userinfo, query and relative links, each with its edge cases.
 */
import { describe, expect, test } from "bun:test";
import { MAX_URL_LENGTH, normalizeUrl } from "./index.ts";

/** The normalized URL, failing the test with the reason when the input was rejected. */
function norm(input: string, base?: string): string {
  const result = normalizeUrl(input, base);
  if (!result.ok) throw new Error(`rejected ${JSON.stringify(input)}: ${result.reason}`);
  return result.url;
}

/** The rejection reason, failing the test when the input was accepted. */
function reason(input: string, base?: string): string {
  const result = normalizeUrl(input, base);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(input)} as ${result.url}`);
  return result.reason;
}

describe("normalizeUrl - schemes", () => {
  test("accepts http and https", () => {
    expect(norm("http://example.com/")).toBe("http://example.com/");
    expect(norm("https://example.com/")).toBe("https://example.com/");
  });

  test("rejects other schemes with the scheme as detail", () => {
    expect(reason("ftp://example.com/file")).toBe("unsupported-scheme: ftp");
    expect(reason("mailto:someone@example.com")).toBe("unsupported-scheme: mailto");
    expect(reason("javascript:void(0)")).toBe("unsupported-scheme: javascript");
    expect(reason("data:text/html,hi")).toBe("unsupported-scheme: data");
    expect(reason("file:///etc/passwd")).toBe("unsupported-scheme: file");
    expect(reason("ws://example.com/")).toBe("unsupported-scheme: ws");
  });

  test("names a foreign scheme even when the rest of the URL does not parse", () => {
    expect(reason("ftp://exa mple.com/")).toBe("unsupported-scheme: ftp");
  });

  test("shortens a very long scheme in the reason", () => {
    const r = reason("x".repeat(200) + ":stuff");
    expect(r.startsWith("unsupported-scheme: xxx")).toBe(true);
    expect(r.length).toBeLessThan(60);
  });

  test("lower-cases the scheme", () => {
    expect(norm("HTTP://example.com/")).toBe("http://example.com/");
    expect(norm("hTTpS://example.com/")).toBe("https://example.com/");
  });

  test("reads a special scheme without slashes as WHATWG does", () => {
    expect(norm("http:example.com/a")).toBe("http://example.com/a");
    expect(norm("http:\\\\example.com\\a\\b")).toBe("http://example.com/a/b");
  });
});

describe("normalizeUrl - rejections", () => {
  test("rejects an empty or blank input as empty", () => {
    expect(reason("")).toBe("empty");
    expect(reason("  \t\n ")).toBe("empty");
  });

  test("rejects an empty input even with a base, since it only names the page itself", () => {
    expect(reason("", "http://example.com/page")).toBe("empty");
  });

  test("rejects garbage as unparseable", () => {
    expect(reason("not a url")).toBe("unparseable");
    expect(reason("http://exa mple.com/")).toBe("unparseable");
    expect(reason("http://example.com:65536/")).toBe("unparseable");
    expect(reason("http://[::1/")).toBe("unparseable");
  });

  test("rejects a relative input without a base as unparseable", () => {
    expect(reason("/path/only")).toBe("unparseable");
    expect(reason("page.html")).toBe("unparseable");
  });

  test("rejects an http URL with no host as missing-host", () => {
    expect(reason("http://")).toBe("missing-host");
    expect(reason("https:///")).toBe("missing-host");
    expect(reason("http:")).toBe("missing-host");
    expect(reason("http://user@/x")).toBe("missing-host");
    expect(reason("http://?q")).toBe("missing-host");
  });

  test("rejects a host made only of dots as missing-host", () => {
    expect(reason("http://./")).toBe("missing-host");
    expect(reason("http://../a")).toBe("missing-host");
  });

  test("rejects a host that is invalid once its trailing dots are gone", () => {
    // With the dots `1.2.3.999..` is a domain name; without them it is an out-of-range IPv4 address.
    expect(reason("http://1.2.3.999../")).toBe("invalid-host: 1.2.3.999");
  });

  test("rejects punycode that does not decode", () => {
    expect(reason("http://xn--abc.com/")).toBe("unparseable");
  });

  test("rejects an input longer than the limit before parsing", () => {
    const long = "http://example.com/" + "a".repeat(MAX_URL_LENGTH);
    expect(reason(long)).toBe(`too-long: ${long.length} chars`);
  });

  test("accepts an input exactly at the limit", () => {
    const url = "http://example.com/" + "a".repeat(MAX_URL_LENGTH - "http://example.com/".length);
    expect(url.length).toBe(MAX_URL_LENGTH);
    expect(norm(url)).toBe(url);
  });

  test("rejects a result that percent-encoding pushed past the limit", () => {
    const url = "http://example.com/" + "ü".repeat(3000);
    expect(url.length).toBeLessThan(MAX_URL_LENGTH);
    expect(reason(url)).toBe(`too-long: ${"http://example.com/".length + 6 * 3000} chars after normalizing`);
  });

  test("never throws, whatever the input", () => {
    for (const input of ["%", "http://%", "http://[", "::", "//", "?", "#", "\u0000", "\ud800", "http://a\u0000b/"]) {
      expect(() => normalizeUrl(input)).not.toThrow();
      expect(() => normalizeUrl(input, "http://example.com/")).not.toThrow();
    }
  });
});

describe("normalizeUrl - host", () => {
  test("lower-cases the host and returns it", () => {
    expect(normalizeUrl("http://ExAmple.COM/Path")).toEqual({ ok: true, url: "http://example.com/Path", host: "example.com" });
  });

  test("converts an IDN host to punycode", () => {
    expect(normalizeUrl("http://bücher.de/")).toEqual({ ok: true, url: "http://xn--bcher-kva.de/", host: "xn--bcher-kva.de" });
    expect(norm("https://BÜCHER.de/")).toBe("https://xn--bcher-kva.de/");
    expect(norm("http://faß.de/")).toBe("http://xn--fa-hia.de/");
  });

  test("keeps a host already in punycode", () => {
    expect(norm("http://xn--bcher-kva.de/")).toBe("http://xn--bcher-kva.de/");
  });

  test("decodes percent-escapes in the host as WHATWG does", () => {
    expect(norm("http://%41.com/")).toBe("http://a.com/");
  });

  test("drops a trailing dot on the host", () => {
    expect(normalizeUrl("http://example.com./a")).toEqual({ ok: true, url: "http://example.com/a", host: "example.com" });
  });

  test("drops several trailing dots, so that the result is stable", () => {
    expect(norm("http://example.com../a")).toBe("http://example.com/a");
  });

  test("drops the trailing dot and keeps a non-default port", () => {
    expect(norm("http://EXAMPLE.com.:8080/")).toBe("http://example.com:8080/");
  });

  test("re-reads a host as an IPv4 address once its trailing dots are gone", () => {
    expect(normalizeUrl("http://0x7f.1../x")).toEqual({ ok: true, url: "http://127.0.0.1/x", host: "127.0.0.1" });
  });

  test("canonicalizes IPv4 hosts as WHATWG does", () => {
    expect(norm("http://1.2.3.4./")).toBe("http://1.2.3.4/");
    expect(norm("http://0x7f.0.0.1/")).toBe("http://127.0.0.1/");
    expect(norm("http://2130706433/")).toBe("http://127.0.0.1/");
  });

  test("keeps IPv6 hosts in brackets, compressed and lower-case", () => {
    expect(normalizeUrl("http://[0:0:0:0:0:0:0:1]:80/")).toEqual({ ok: true, url: "http://[::1]/", host: "[::1]" });
    expect(norm("http://[::FFFF:1.2.3.4]/")).toBe("http://[::ffff:102:304]/");
  });
});

describe("normalizeUrl - port", () => {
  test("drops the default port of each scheme", () => {
    expect(norm("http://example.com:80/a")).toBe("http://example.com/a");
    expect(norm("https://example.com:443/a")).toBe("https://example.com/a");
  });

  test("parses the port as WHATWG does, so leading zeros still make the default port", () => {
    expect(norm("http://example.com:0080/")).toBe("http://example.com/");
    expect(norm("https://example.com:00443/")).toBe("https://example.com/");
  });

  test("keeps a port that is not the scheme's default", () => {
    expect(norm("http://example.com:443/")).toBe("http://example.com:443/");
    expect(norm("https://example.com:80/")).toBe("https://example.com:80/");
    expect(norm("http://example.com:08080/")).toBe("http://example.com:8080/");
  });

  test("drops an empty port", () => {
    expect(norm("http://example.com:/a")).toBe("http://example.com/a");
  });
});

describe("normalizeUrl - path", () => {
  test("turns an empty path into /", () => {
    expect(norm("http://example.com")).toBe("http://example.com/");
    expect(norm("http://example.com?q=1")).toBe("http://example.com/?q=1");
  });

  test("resolves dot segments", () => {
    expect(norm("http://example.com/a/./b/../c")).toBe("http://example.com/a/c");
    expect(norm("http://example.com/../../a")).toBe("http://example.com/a");
    expect(norm("http://example.com/a/b/..")).toBe("http://example.com/a/");
  });

  test("resolves percent-encoded dot segments in either case", () => {
    expect(norm("http://example.com/a/%2e/b/%2E%2e/c")).toBe("http://example.com/a/c");
    expect(norm("http://example.com/a/b/.%2E/c")).toBe("http://example.com/a/c");
    expect(norm("http://example.com/a/b/%2e./c")).toBe("http://example.com/a/c");
    expect(norm("http://example.com/a/%2e")).toBe("http://example.com/a/");
  });

  test("decodes a segment of three encoded dots into a plain name", () => {
    expect(norm("http://example.com/a/%2e%2e%2e")).toBe("http://example.com/a/...");
    expect(norm("http://example.com/a/%2e%2e%2f")).toBe("http://example.com/a/..%2F");
  });

  test("decodes escapes of unreserved characters", () => {
    expect(norm("http://example.com/%41%62%30%2D%2e%5F%7e")).toBe("http://example.com/Ab0-._~");
  });

  test("upper-cases the hex of the other escapes without decoding them", () => {
    expect(norm("http://example.com/a%2fb%3a%c3%bc%20")).toBe("http://example.com/a%2Fb%3A%C3%BC%20");
  });

  test("never decodes twice", () => {
    expect(norm("http://example.com/%2541")).toBe("http://example.com/%2541");
    expect(norm("http://example.com/%252e%252E")).toBe("http://example.com/%252e%252E");
  });

  test("keeps a stray percent sign as it is", () => {
    expect(norm("http://example.com/100%/%zz/%4")).toBe("http://example.com/100%/%zz/%4");
  });

  test("does not decode a digit that would complete an escape with a stray percent sign", () => {
    expect(norm("http://example.com/%%341")).toBe("http://example.com/%%341");
    expect(norm("http://example.com/%4%31")).toBe("http://example.com/%4%31");
    expect(norm("http://example.com/%g%41")).toBe("http://example.com/%gA");
  });

  test("keeps the percent-encoding WHATWG applies to spaces, quotes and non-ASCII", () => {
    expect(norm('http://example.com/a b"<>ü')).toBe("http://example.com/a%20b%22%3C%3E%C3%BC");
  });

  test("turns backslashes into slashes as WHATWG does", () => {
    expect(norm("http://example.com\\a\\b")).toBe("http://example.com/a/b");
  });

  test("keeps repeated slashes, trailing slashes and index.html", () => {
    expect(norm("http://example.com//a///b/")).toBe("http://example.com//a///b/");
    expect(norm("http://example.com/a")).toBe("http://example.com/a");
    expect(norm("http://example.com/a/index.html")).toBe("http://example.com/a/index.html");
  });

  test("keeps the case of the path", () => {
    expect(norm("http://example.com/A/b/C.HTML")).toBe("http://example.com/A/b/C.HTML");
  });
});

describe("normalizeUrl - fragment and userinfo", () => {
  test("drops the fragment", () => {
    expect(norm("http://example.com/a#section")).toBe("http://example.com/a");
    expect(norm("http://example.com/a?q=1#x?y=2")).toBe("http://example.com/a?q=1");
  });

  test("drops an empty fragment", () => {
    expect(norm("http://example.com/a#")).toBe("http://example.com/a");
    expect(norm("http://example.com/?#")).toBe("http://example.com/");
  });

  test("keeps userinfo as it is", () => {
    expect(norm("http://User:P%41ss@Example.com/")).toBe("http://User:P%41ss@example.com/");
    expect(norm("http://user@example.com/")).toBe("http://user@example.com/");
  });

  test("drops an empty userinfo as WHATWG does", () => {
    expect(norm("http://@example.com/")).toBe("http://example.com/");
  });
});

describe("normalizeUrl - query", () => {
  test("sorts parameters by name", () => {
    expect(norm("http://example.com/?b=2&a=1&c=3")).toBe("http://example.com/?a=1&b=2&c=3");
  });

  test("keeps the order of values for a repeated name", () => {
    expect(norm("http://example.com/?b=1&a=z&b=0&a=y")).toBe("http://example.com/?a=z&a=y&b=1&b=0");
  });

  test("sorts by code unit, so upper case comes before lower case", () => {
    expect(norm("http://example.com/?b=1&B=2&_=3&a=4")).toBe("http://example.com/?B=2&_=3&a=4&b=1");
  });

  test("drops tracking parameters", () => {
    expect(
      norm(
        "http://example.com/p?utm_source=x&id=7&utm_medium=y&utm_campaign=z&gclid=1&fbclid=2&msclkid=3&dclid=4&yclid=5&mc_cid=6&mc_eid=7&_ga=8&igshid=9",
      ),
    ).toBe("http://example.com/p?id=7");
  });

  test("compares tracking names case-insensitively", () => {
    expect(norm("http://example.com/?UTM_Source=x&GCLID=1&FbClId=2&q=1")).toBe("http://example.com/?q=1");
  });

  test("compares tracking names after decoding unreserved escapes", () => {
    expect(norm("http://example.com/?utm%5Fsource=x&%67clid=1&q=1")).toBe("http://example.com/?q=1");
  });

  test("drops a tracking parameter written without =", () => {
    expect(norm("http://example.com/?fbclid&q")).toBe("http://example.com/?q");
  });

  test("keeps names that only resemble tracking names", () => {
    expect(norm("http://example.com/?utm=1&utmsource=2&gclid2=3&_gat=4")).toBe("http://example.com/?_gat=4&gclid2=3&utm=1&utmsource=2");
  });

  test("matches tracking names on the name only, not the value", () => {
    expect(norm("http://example.com/?ref=utm_source")).toBe("http://example.com/?ref=utm_source");
  });

  test("drops a query that only held trackers", () => {
    expect(norm("http://example.com/a?utm_source=x&gclid=1")).toBe("http://example.com/a");
  });

  test("drops an empty query", () => {
    expect(norm("http://example.com/a?")).toBe("http://example.com/a");
    expect(norm("http://example.com?")).toBe("http://example.com/");
  });

  test("drops empty pieces between separators", () => {
    expect(norm("http://example.com/?b=2&&a=1&")).toBe("http://example.com/?a=1&b=2");
    expect(norm("http://example.com/?&&&")).toBe("http://example.com/");
  });

  test("keeps a parameter without = exactly as it is", () => {
    expect(norm("http://example.com/?flag&a=1")).toBe("http://example.com/?a=1&flag");
    expect(norm("http://example.com/?b&a=")).toBe("http://example.com/?a=&b");
  });

  test("keeps parameters with an empty name", () => {
    expect(norm("http://example.com/?b=1&=x")).toBe("http://example.com/?=x&b=1");
  });

  test("re-encodes nothing but the unreserved escapes", () => {
    expect(norm("http://example.com/?q=a+b%20c&u=http://x/y?z&s=%2f%3A")).toBe("http://example.com/?q=a+b%20c&s=%2F%3A&u=http://x/y?z");
  });

  test("decodes unreserved escapes and upper-cases other hex in names and values", () => {
    expect(norm("http://example.com/?%61=%7e%2d&b=%c3%a9")).toBe("http://example.com/?a=~-&b=%C3%A9");
  });

  test("sorts by the name after decoding unreserved escapes", () => {
    expect(norm("http://example.com/?b=1&%61=2")).toBe("http://example.com/?a=2&b=1");
  });

  test("never decodes twice in the query", () => {
    expect(norm("http://example.com/?a=%2541")).toBe("http://example.com/?a=%2541");
  });

  test("keeps a stray percent sign in the query", () => {
    expect(norm("http://example.com/?a=100%&b=%4%31")).toBe("http://example.com/?a=100%&b=%4%31");
  });

  test("keeps the percent-encoding WHATWG applies to the query", () => {
    expect(norm("http://example.com/?q=a b'ü")).toBe("http://example.com/?q=a%20b%27%C3%BC");
  });

  test("does not treat ; as a separator", () => {
    expect(norm("http://example.com/?b=1;a=2")).toBe("http://example.com/?b=1;a=2");
  });
});

describe("normalizeUrl - relative links", () => {
  const page = "http://example.com/dir/page.html?x=1#top";

  test("resolves a relative path against the base", () => {
    expect(norm("other.html", page)).toBe("http://example.com/dir/other.html");
    expect(norm("../up/", page)).toBe("http://example.com/up/");
    expect(norm("/root", page)).toBe("http://example.com/root");
  });

  test("resolves a scheme-relative link with the base's scheme", () => {
    expect(norm("//Other.example/x", "https://example.com/")).toBe("https://other.example/x");
  });

  test("resolves a query-only link and drops the base's query", () => {
    expect(norm("?b=2&a=1", page)).toBe("http://example.com/dir/page.html?a=1&b=2");
  });

  test("never lets the base's fragment leak", () => {
    expect(norm("#other", page)).toBe("http://example.com/dir/page.html?x=1");
    expect(norm("?q", page)).toBe("http://example.com/dir/page.html?q");
    expect(norm("next", page)).toBe("http://example.com/dir/next");
  });

  test("normalizes the resolved URL like any other", () => {
    expect(norm("./%7Ea/../b?utm_source=x#f", "HTTP://Example.COM:80/d/")).toBe("http://example.com/d/b");
  });

  test("ignores the base for an absolute input", () => {
    expect(norm("https://other.example/x", page)).toBe("https://other.example/x");
  });

  test("resolves against a base href that is itself relative to nothing else", () => {
    expect(norm("img/a.png", "https://cdn.example/assets/")).toBe("https://cdn.example/assets/img/a.png");
  });

  test("rejects a link whose resolution leaves http", () => {
    expect(reason("mailto:a@example.com", page)).toBe("unsupported-scheme: mailto");
    expect(reason("x", "ftp://example.com/dir/")).toBe("unsupported-scheme: ftp");
  });

  test("still accepts an absolute input when the base is unusable", () => {
    expect(norm("http://example.com/a", "not a url")).toBe("http://example.com/a");
    expect(norm("http://example.com/a", "http://" + "a".repeat(MAX_URL_LENGTH))).toBe("http://example.com/a");
  });

  test("rejects a relative input when the base is unusable", () => {
    expect(reason("a.html", "not a url")).toBe("bad-base: unparseable");
    const long = "http://example.com/" + "a".repeat(MAX_URL_LENGTH);
    expect(reason("a.html", long)).toBe(`bad-base: too-long: ${long.length} chars`);
  });
});
