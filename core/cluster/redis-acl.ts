/**
 * The Redis ACL of the crawler's user, the one rule set `cluster up --secure` and the Terraform fleet
 * (deploy/terraform/modules/fleet/redis.tf, checked equal by a test) give it: only the crawler's keys
 * (adapters/redis: `seen:*` Bloom filters, `fp:*` and `simhash:*` content fingerprints, `crawler:*` the
 * rest, e.g. the fetch claims `crawler:fetch-claim:*`), every command but the administrative and dangerous
 * ones (no CONFIG, FLUSHALL, KEYS, DEBUG, SHUTDOWN...), no pub/sub channels. The default user keeps a password nobody knows rather than being
 * switched off: Redis 7.0 replays the AOF as the default user, and would drop the seen-set's MULTI/EXEC
 * entries of a disabled one.
 */
export const REDIS_CRAWLER_USER = "crawler";
export const REDIS_CRAWLER_ACL = "resetkeys ~seen:* ~fp:* ~simhash:* ~crawler:* resetchannels +@all -@admin -@dangerous";
