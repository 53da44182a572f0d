import { expect, test } from "bun:test";
import { delta, familyOf, parseInfo, type ServerSnapshot } from "./cluster-stats.ts";
import { roleOf } from "./roles.ts";

test("roles - the cluster's processes fall into their roles; Redis's rewrite children count as Redis", () => {
  expect(roleOf("frontier-2 (bun)")).toBe("frontier");
  expect(roleOf("fetch-1 (deno)")).toBe("fetch");
  expect(roleOf("coordinator-1 (bun)")).toBe("coordinator");
  expect(roleOf("nats-server")).toBe("nats-server");
  expect(roleOf("redis-server")).toBe("redis-server");
  expect(roleOf("redis-aof-rewrite")).toBe("redis-server");
  expect(roleOf("bun scripts/cluster/main.ts")).toBe("launcher");
});

test("cluster stats - INFO text and key families are read as Redis writes them", () => {
  const info = parseInfo(
    "# Commandstats\r\ncmdstat_get:calls=12,usec=3,usec_per_call=0.25\r\n\r\n# Persistence\r\naof_current_size:1024\r\n",
  );
  expect(info["cmdstat_get"]).toBe("calls=12,usec=3,usec_per_call=0.25");
  expect(info["aof_current_size"]).toBe("1024");
  expect(familyOf("seen:12:0")).toBe("seen");
  expect(familyOf("crawler:fetch-claim:abc")).toBe("crawler");
  expect(familyOf("simhash:seq")).toBe("simhash");
  expect(familyOf("plain")).toBe("plain");
});

test("cluster stats - a delta counts only what grew between two snapshots", () => {
  const snap = (at: number, get: number, set: number, aof: number, fetchSeq: number): ServerSnapshot => ({
    at,
    redis: { commands: { get, set }, usedMemoryBytes: 100, keys: 10, aofBytes: aof, aofRewrites: 0 },
    nats: { inMsgs: 10 * at, inBytes: 1000 * at, outMsgs: 0, outBytes: 0, streams: { CRAWL_FETCH: { lastSeq: fetchSeq, bytes: 0 } } },
  });
  const d = delta(snap(1000, 5, 7, 100, 3), snap(3000, 15, 7, 400, 13));
  expect(d.seconds).toBe(2);
  expect(d.redisCommands).toEqual({ get: 10 });
  expect(d.redisCommandsTotal).toBe(10);
  expect(d.redisAofBytes).toBe(300);
  expect(d.natsInMsgs).toBe(20_000);
  expect(d.streamMessages).toEqual({ CRAWL_FETCH: 10 });
});
