import { expect, test } from "bun:test";
import { politenessKeyMismatch, ringPolitenessKey } from "./fleet-politeness-key.ts";

test("fleet politeness key - a ring without a key is host's; a role with another key is refused with what to do", () => {
  expect(ringPolitenessKey({})).toBe("host");
  expect(ringPolitenessKey({ politenessKey: "domain" })).toBe("domain");
  expect(politenessKeyMismatch("domain", "domain")).toBeUndefined();
  const refused = politenessKeyMismatch("host", "domain");
  expect(refused).toContain("--politeness-key domain differs from the cluster's ring (host)");
  expect(refused).toContain("start with --politeness-key host, or crawl with domain in a new cluster");
  expect(politenessKeyMismatch("host", "ip", "the store in out/", "into another --out")).toContain("or crawl with ip into another --out");
});
