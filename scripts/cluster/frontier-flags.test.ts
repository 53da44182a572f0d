import { expect, test } from "bun:test";
import { parseUp } from "./main.ts";

test("cluster up - refuses frontier flags asking for more copies of the replicated state than its one server per region keeps", () => {
  expect(() => parseUp(["--", "--nats-replicas", "3"])).toThrow(/--nats-replicas 3 after "--": cluster up runs one nats-server per region/);
  expect(() => parseUp(["--", "--nats-replicas=2"])).toThrow(/--nats-replicas 2 after "--"/);
  const ok = ["--nats-replicas", "1", "--replicate-state", "false", "--state-snapshot-interval", "1m", "--min-gap", "200ms"];
  expect(parseUp(["--", ...ok]).frontierArgs).toEqual(ok);
});
