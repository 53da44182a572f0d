/**
 * The Redis adapters of a region: `RedisSeenSet` (the frontier's seen-set, a growing Bloom filter per
 * partition), `RedisContentIndex` (the fetch nodes' exact and near-duplicate index) and `RedisFetchClaims`
 * (which stored copy of a fetch task the region's fetch nodes fetch), over one connection from
 * `connectRedis`. Runtime-neutral (the `redis` package and node: built-ins only), so the
 * fetch node runs them on Deno as well as Bun.
 */
export { connectRedis, redactUrl, redisCommandError, RedisCommandError, redisConnectionLog, RedisUnavailableError } from "./connect.ts";
export type { RedisClient, RedisConnectOptions } from "./connect.ts";
export { RedisSeenSet, SeenPlanMismatchError } from "./redis-seen-set.ts";
export type { RedisSeenSetOptions, SeenPartitionInfo, SeenSliceShape } from "./redis-seen-set.ts";
export { RedisContentIndex } from "./redis-content-index.ts";
export type { RedisContentIndexOptions } from "./redis-content-index.ts";
export { RedisFetchClaims } from "./redis-fetch-claims.ts";
export type { RedisFetchClaimsOptions } from "./redis-fetch-claims.ts";
export { LuaScript } from "./lua-script.ts";
export { inspectAddressGate, RedisAddressGate } from "./redis-address-gate.ts";
export type { RedisAddressGateOptions } from "./redis-address-gate.ts";
