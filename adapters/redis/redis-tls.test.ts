/**
 * The Redis adapters as a secure cluster runs them: redis-server on a TLS port only, with the crawler's
 * ACL user (core/cluster REDIS_CRAWLER_ACL, the fleet's too) and a default user nobody can log in as. The
 * seen-set and the content index do their work (scripts included) under that ACL; a wrong password, a
 * server certificate of another CA and a plain-text client are refused at once with a line that says why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { makePki, redisTlsConverse, startSecureRedis, type Pki, type SecureRedis } from "../../tests/support/secure-servers.ts";
import { connectRedis, RedisContentIndex, RedisSeenSet, RedisUnavailableError } from "./index.ts";

let pki: Pki;
let redis: SecureRedis;
let ca: string;

beforeAll(async () => {
  pki = await makePki();
  redis = await startSecureRedis({ pki });
  ca = readFileSync(pki.caFile, "utf8");
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  pki?.remove();
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

test("redis TLS - the seen-set and the content index work over TLS as the crawler's ACL user", async () => {
  const seen = await RedisSeenSet.connect(redis.url, {}, { tlsCaPem: ca, name: "frontier-1" });
  const content = await RedisContentIndex.connect(redis.url, {}, { tlsCaPem: ca, name: "fetch-1" });
  try {
    // A partition answers once it is built (its guard written); a frontier builds it from its store.
    await seen.rebuild(3, []);
    expect(await seen.checkAndAdd(3, ["https://a.example/", "https://b.example/"])).toEqual([false, false]);
    expect(await seen.checkAndAdd(3, ["https://a.example/"])).toEqual([true]);
    expect(await content.claimExact("ab".repeat(32), "https://a.example/")).toBeUndefined();
    expect(await content.claimExact("ab".repeat(32), "https://b.example/")).toBe("https://a.example/");
    expect(await content.claimNear(0x0123456789abcdefn, "https://a.example/")).toBeUndefined();
    expect(await content.claimNear(0x0123456789abcdeen, "https://b.example/")).toBe("https://a.example/");
  } finally {
    await seen.close();
    await content.close();
  }
});

test("redis TLS - the crawler's user may not touch other keys or run admin commands", async () => {
  const client = await connectRedis(redis.url, { tlsCaPem: ca });
  try {
    const denied = async (args: string[]) => (await failure(client.sendCommand(args)))?.message ?? "allowed";
    expect(await denied(["SET", "other:key", "x"])).toMatch(/^NOPERM/);
    expect(await denied(["CONFIG", "SET", "appendonly", "no"])).toMatch(/^NOPERM/);
    expect(await denied(["FLUSHALL"])).toMatch(/^NOPERM/);
    expect(await denied(["KEYS", "*"])).toMatch(/^NOPERM/);
  } finally {
    client.destroy();
  }
  // The default user is locked by a password nobody was told.
  expect(await redisTlsConverse(redis.port, pki.caFile, ["PING"], 1)).toEqual([expect.stringMatching(/^-NOAUTH/)]);
});

test("redis TLS - a wrong password, another CA, or plain text: refused at once, saying why", async () => {
  const other = await makePki();
  try {
    const wrongPassword = await failure(
      connectRedis(redis.url.replace(redis.password, "not-the-password"), { tlsCaPem: ca, initialTimeoutMs: 30_000 }),
    );
    expect(wrongPassword).toBeInstanceOf(RedisUnavailableError);
    expect(wrongPassword?.message).toMatch(
      /^Redis refused the login \(WRONGPASS[^)]*\): check the user and password in the Redis URL \(CRAWL_REDIS_URL\)$/,
    );
    const otherCa = await failure(connectRedis(redis.url, { tlsCaPem: readFileSync(other.caFile, "utf8"), initialTimeoutMs: 30_000 }));
    expect(otherCa?.message).toMatch(/^Redis server's TLS certificate was not accepted \(.+\): check CRAWL_REDIS_TLS_CA_FILE/);
    const plain = await failure(connectRedis(redis.url.replace("rediss://", "redis://"), { initialTimeoutMs: 1_000 }));
    expect(plain).toBeInstanceOf(RedisUnavailableError);
  } finally {
    other.remove();
  }
}, 60_000);
