import { expect, test } from "bun:test";
import { proxyFromEnv } from "./index.ts";

test("proxy env - HTTP_PROXY, then http_proxy, HTTPS_PROXY, https_proxy; empty counts as unset", () => {
  expect(proxyFromEnv({})).toBeUndefined();
  expect(proxyFromEnv({ HTTP_PROXY: "http://a:1", HTTPS_PROXY: "http://b:2" })).toBe("http://a:1");
  expect(proxyFromEnv({ http_proxy: "http://a:1", HTTPS_PROXY: "http://b:2" })).toBe("http://a:1");
  expect(proxyFromEnv({ HTTP_PROXY: " ", https_proxy: "http://c:3" })).toBe("http://c:3");
});

test("proxy env - NO_PROXY=* turns the fallback off; a list of hosts does not", () => {
  expect(proxyFromEnv({ HTTP_PROXY: "http://a:1", NO_PROXY: "*" })).toBeUndefined();
  expect(proxyFromEnv({ HTTP_PROXY: "http://a:1", no_proxy: " * " })).toBeUndefined();
  expect(proxyFromEnv({ HTTP_PROXY: "http://a:1", NO_PROXY: "localhost,.internal" })).toBe("http://a:1");
});
