import { expect, test } from "bun:test";
import { identityOfAltNames, identityUri, parseIdentityUri } from "./index.ts";

test("node identity - a role and node id are written as one URI and read back", () => {
  expect(identityUri({ role: "frontier", id: "us-east-1-frontier-1" })).toBe("crawler://frontier/us-east-1-frontier-1");
  expect(parseIdentityUri("crawler://fetch/fetch-2")).toEqual({ role: "fetch", id: "fetch-2" });
  expect(() => identityUri({ role: "admin" as "fetch", id: "x" })).toThrow(/unknown role/);
  expect(() => identityUri({ role: "fetch", id: "Bad Id" })).toThrow(/node id/);
});

test("node identity - URIs that are not ours, or not well formed, name nobody", () => {
  for (const uri of [
    "https://frontier/f1",
    "crawler://admin/x",
    "crawler://frontier/",
    "crawler://frontier/F1",
    "crawler://frontier/f1/x",
    "crawler://",
  ]) {
    expect({ uri, identity: parseIdentityUri(uri) }).toEqual({ uri, identity: undefined });
  }
});

test("node identity - read from a certificate's subjectAltName as node:tls writes it; none or two name nobody", () => {
  expect(identityOfAltNames("IP Address:127.0.0.1, DNS:localhost, URI:crawler://coordinator/coordinator-1")).toEqual({
    role: "coordinator",
    id: "coordinator-1",
  });
  expect(identityOfAltNames("IP Address:127.0.0.1, DNS:localhost")).toBeUndefined();
  expect(identityOfAltNames(undefined)).toBeUndefined();
  expect(identityOfAltNames("URI:crawler://frontier/a, URI:crawler://fetch/b")).toBeUndefined();
  expect(identityOfAltNames("DNS:crawler://frontier/a")).toBeUndefined();
});
