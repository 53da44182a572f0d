import { expect, test } from "bun:test";
import { parseUp } from "./main.ts";

test("cluster up --hosts-file is cluster up's own flag (and CRAWL_HOSTS_FILE), not a frontier flag after --", () => {
  expect(parseUp(["--hosts-file", "/tmp/hosts", "--allow-private-addresses"])).toMatchObject({
    hostsFile: "/tmp/hosts",
    allowPrivateAddresses: true,
    frontierArgs: [],
  });
  expect(parseUp([], { CRAWL_HOSTS_FILE: "/tmp/env-hosts" }).hostsFile).toBe("/tmp/env-hosts");
  expect(parseUp([]).hostsFile).toBe("");
});
