/**
 * The Redis ACL of the crawler's user, the one rule set `cluster up --secure` and the Terraform fleet
 * (deploy/terraform/modules/fleet/redis.tf, checked equal by a test) give it: only the crawler's keys
 * (adapters/redis: `seen:*` Bloom filters, `fp:*` and `simhash:*` content fingerprints, `crawler:*` the
 * rest, e.g. the fetch claims `crawler:fetch-claim:*`), every command but the administrative and dangerous
 * ones (no CONFIG, FLUSHALL, KEYS, DEBUG, SHUTDOWN...) except INFO, no pub/sub channels. INFO, which only
 * reads, is how the seen-set's script learns the run_id of the Redis process it runs in (adapters/redis/
 * seen-script.ts: its bits stay out of the AOF, so a filter loaded from disk must be told from a live one). The default user keeps a password nobody knows rather than being
 * switched off: Redis 7.0 replays the AOF as the default user, and would drop the seen-set's MULTI/EXEC
 * entries of a disabled one.
 */
export const REDIS_CRAWLER_USER = "crawler";
export const REDIS_CRAWLER_ACL = "resetkeys ~seen:* ~fp:* ~simhash:* ~crawler:* resetchannels +@all -@admin -@dangerous +info";
