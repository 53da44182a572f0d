import { describe, expect, test } from "bun:test";
import { normalizeUrl } from "../url/index.ts";
import { AddressPolicy, describeRefusal } from "./policy.ts";

const strict = new AddressPolicy();
const reasonOf = (policy: AddressPolicy, host: string) => policy.checkHost(host)?.reason;

describe("address policy: hosts by their spelling", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f000001", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["[::1]", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["[fe80::1%25eth0]", "link-local"],
    ["169.254.169.254", "metadata"],
    ["[fd00:ec2::254]", "metadata"],
    ["10.0.0.1:8080", "private"],
    ["[::1]:8080", "loopback"],
    ["100.64.0.1", "cgnat"],
    ["224.0.0.1", "multicast"],
    ["0.0.0.0", "this-network"],
    ["[::]", "unspecified"],
    ["localhost", "localhost"],
    ["LOCALHOST.", "localhost"],
    ["localhost:3000", "localhost"],
    ["api.localhost", "localhost"],
    ["printer.local", "local-name"],
    ["db.internal", "local-name"],
    ["router.home.arpa", "local-name"],
    ["nohost", "single-label"],
    ["metadata", "metadata"],
    ["metadata.google.internal", "metadata"],
    ["", "empty-host"],
    [":80", "empty-host"],
  ])("refuses %p as %s", (host, reason) => {
    expect(reasonOf(strict, host)).toBe(reason as never);
  });

  test.each([
    "example.com",
    "site0.test",
    "example.com:8080",
    "93.184.216.34",
    "[2606:4700::6810:85e5]",
    "localhost.example.com",
    "127.0.0.1.example.com",
  ])("lets %p through (a name is judged again by what it resolves to)", (host) => {
    expect(strict.checkHost(host)).toBeUndefined();
  });
});

describe("address policy: settings", () => {
  test("allowing private addresses lifts every refusal but metadata and the deny lists", () => {
    const open = new AddressPolicy({ allowPrivate: true, deny: ["10.9.0.0/16"], denyHosts: ["corp.example.com"] });
    for (const host of ["127.0.0.1", "10.0.0.1", "[::1]", "localhost", "printer.local", "nohost", "[fe80::1]"])
      expect(open.checkHost(host)).toBeUndefined();
    expect(reasonOf(open, "169.254.169.254")).toBe("metadata");
    expect(reasonOf(open, "[::ffff:169.254.169.254]")).toBe("metadata");
    expect(reasonOf(open, "metadata.google.internal")).toBe("metadata");
    expect(reasonOf(open, "10.9.1.1")).toBe("denied-address");
    expect(reasonOf(open, "wiki.corp.example.com")).toBe("denied-host");
  });

  test("an explicitly allowed range lets exactly its addresses through, metadata included", () => {
    const policy = new AddressPolicy({ allow: ["127.0.0.1/32", "169.254.169.254"] });
    expect(policy.checkHost("127.0.0.1")).toBeUndefined();
    expect(policy.checkHost("2130706433")).toBeUndefined();
    expect(reasonOf(policy, "127.0.0.2")).toBe("loopback");
    expect(policy.checkHost("169.254.169.254")).toBeUndefined();
    expect(reasonOf(policy, "localhost")).toBe("localhost");
  });

  test("a denied range wins over an allowed one and over private addresses being allowed", () => {
    const policy = new AddressPolicy({ allowPrivate: true, allow: ["10.0.0.0/8"], deny: ["10.1.0.0/16"] });
    expect(policy.checkHost("10.2.0.1")).toBeUndefined();
    expect(policy.checkHost("10.1.0.1")).toMatchObject({ reason: "denied-address", rule: "10.1.0.0/16", address: "10.1.0.1" });
    expect(policy.checkAddress("::ffff:10.1.2.3", "x.example")?.reason).toBe("denied-address");
    expect(new AddressPolicy({ deny: ["93.184.216.0/24"] }).checkAddress("93.184.216.34", "example.com")?.reason).toBe("denied-address");
  });

  test("a denied host covers its subdomains, however the entry is written", () => {
    for (const entry of ["corp.example.com", ".corp.example.com", "*.corp.example.com", "CORP.example.com."]) {
      const policy = new AddressPolicy({ denyHosts: [entry] });
      expect(reasonOf(policy, "corp.example.com")).toBe("denied-host");
      expect(reasonOf(policy, "a.b.corp.example.com:8443")).toBe("denied-host");
      expect(policy.checkHost("notcorp.example.com")).toBeUndefined();
    }
  });

  test("bad settings are refused with the entry named", () => {
    expect(() => new AddressPolicy({ deny: ["10.0.0.0/40"] })).toThrow(/10.0.0.0\/40/);
    expect(() => new AddressPolicy({ allow: ["example.com"] })).toThrow(/not an address range/);
    expect(() => new AddressPolicy({ denyHosts: ["exa mple.com"] })).toThrow(/not a host name/);
  });

  test("resolved addresses are judged like literals, and the name is kept for the message", () => {
    const refusal = strict.checkAddress("10.0.0.5", "evil.example");
    expect(refusal).toMatchObject({ reason: "private", host: "evil.example", address: "10.0.0.5" });
    expect(describeRefusal(refusal!)).toBe("evil.example (10.0.0.5) is a private address");
    expect(strict.checkAddress("93.184.216.34", "example.com")).toBeUndefined();
    expect(strict.checkAddress("not an address", "odd.example")?.reason).toBe("reserved");
  });

  test("every refusal reads as one line", () => {
    expect(describeRefusal(strict.checkHost("2130706433")!)).toBe("2130706433 (127.0.0.1) is a loopback address");
    expect(describeRefusal(strict.checkHost("127.0.0.1")!)).toBe("127.0.0.1 is a loopback address");
    expect(describeRefusal(strict.checkHost("[::1]")!)).toBe("::1 is a loopback address");
    expect(describeRefusal(strict.checkHost("nohost")!)).toMatch(/single-label/);
    expect(describeRefusal(strict.checkHost("metadata.google.internal")!)).toMatch(/metadata service/);
    expect(describeRefusal(strict.checkHost("")!)).toBe("no host name");
    expect(describeRefusal(strict.checkHost("[::ffff:a9fe:a9fe]")!)).toBe(
      "::ffff:a9fe:a9fe (carrying 169.254.169.254) is a metadata address",
    );
    expect(describeRefusal(strict.checkAddress("::ffff:127.0.0.2", "mapped.example")!)).toBe(
      "mapped.example (::ffff:7f00:2, carrying 127.0.0.2) is a loopback address",
    );
  });
});

describe("address policy: agreement with the WHATWG URL parser", () => {
  // The URL parser canonicalises IPv4 in every notation and IPv6 to RFC 5952 text (checked against Deno too by
  // tests/runtime/url-hosts.test.ts). Whatever it makes of a host, the verdict is the one for the raw text.
  test.each([
    ["http://0x7f000001/", "0x7f000001"],
    ["http://2130706433/", "2130706433"],
    ["http://0x7f.0.0.1/", "0x7f.0.0.1"],
    ["http://0177.0.0.1/", "0177.0.0.1"],
    ["http://127.1/", "127.1"],
    ["http://0/", "0"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:127.0.0.1]"],
    ["http://[::127.0.0.1]/", "[::127.0.0.1]"],
    ["http://0251.0376.0251.0376/", "0251.0376.0251.0376"],
    ["http://127.0.0.1./", "127.0.0.1."],
    ["http://localhost./", "localhost."],
    ["http://%31%32%37.0.0.1/", "127.0.0.1"],
    ["http://\uff11\uff12\uff17.0.0.1/", "127.0.0.1"],
    ["http://127\u30020\u30020\u30021/", "127.0.0.1"],
    ["http:///nohost", "nohost"],
    ["http://evil.com@127.0.0.1/", "127.0.0.1"],
  ])("%s: the normalized URL's host gets the raw host's verdict", (url, raw) => {
    const n = normalizeUrl(url);
    if (!n.ok) throw new Error(`${url}: ${n.reason}`);
    const verdict = strict.checkHost(n.host)?.reason;
    expect(verdict).toBeDefined();
    expect(verdict).toBe(strict.checkHost(raw)!.reason);
  });
});
