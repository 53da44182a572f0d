import { expect, test } from "bun:test";
import { listenKind, natsUrlsKind, tokenKind } from "./setting-kinds.ts";

test("setting kinds - ids and regions are tokens; an optional one may be empty", () => {
  expect(tokenKind("region").check("eu-1")).toBeUndefined();
  expect(tokenKind("region").check("EU")).toMatch(/^region "EU" must be 1-63 characters/);
  expect(tokenKind("node id").check("")).toMatch(/^node id "" must be/);
  expect(tokenKind("node id", { optional: true }).check("")).toBeUndefined();
});

test("setting kinds - a listen address is host:port with a port up to 65535; an optional one may be empty", () => {
  const listen = listenKind();
  expect(listen.check(listen.parse(" 127.0.0.1:0 "))).toBeUndefined();
  expect(listen.check("[::1]:7400")).toBeUndefined();
  expect(listen.check("host:70000")).toBe('must be host:port (port 0 picks a free one), got "host:70000"');
  expect(listen.check("")).toBeDefined();
  expect(listenKind({ optional: true }).check("")).toBeUndefined();
});

test("setting kinds - NATS servers are a comma-separated list of nats URLs or host:port", () => {
  const nats = natsUrlsKind();
  expect(nats.parse("nats://a:4222, b:4222,")).toEqual(["nats://a:4222", "b:4222"]);
  expect(nats.check([])).toBe("must name at least one server");
  expect(nats.check(["http://x"])).toBe("must be nats://host:port URLs");
  expect(nats.format(["nats://a:1", "b:2"])).toBe("nats://a:1,b:2");
});
