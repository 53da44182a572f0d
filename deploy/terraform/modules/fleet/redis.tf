# redis.conf of every Redis server (Redis 7, as Debian ships it).
#
# A region's first Redis server is the primary the crawler uses; the others replicate it (failover is by
# hand: point the region's nodes at a replica). Persistence is on (AOF, fsync every second, with an RDB
# preamble) so a restart keeps the content fingerprints and fetch claims (the seen-sets stay out of the
# AOF and are rebuilt from the frontier nodes' stores after a restart: docs/cluster.md); maxmemory-policy
# noeviction because an evicted Bloom slice would make the crawl fetch again what it has. The default
# user needs a password nobody knows (not `off`: Redis 7.0 replays the AOF as the default user and would
# drop scripts' MULTI/EXEC entries); the crawler's ACL user may touch only the crawler's keys
# (adapters/redis: seen:*, fp:*, simhash:*, crawler:*) and run no admin or dangerous command but INFO, which
# the seen-set's script reads the server's run_id with (core/cluster/redis-acl.ts; a test requires the
# rendered rules to equal it).
# Passwords live in <config_dir>/redis-users.conf, written at boot from the secret store (scripts.tf).

locals {

  # The ACL rules, minus the password that load-secrets puts in front of them.
  redis_acl = {
    crawler    = "resetkeys ~seen:* ~fp:* ~simhash:* ~crawler:* resetchannels +@all -@admin -@dangerous +info"
    replicator = "resetkeys resetchannels -@all +psync +replconf +ping"
  }

  redis_conf = { for id, m in local.machines : id => "${join("\n", compact(flatten([
    "# redis.conf of ${id} (region ${m.region}, fleet ${var.fleet.name}).",
    "# Rendered by deploy/terraform/modules/fleet; edit the fleet description, not this file.",
    "bind ${var.listen_host}",
    "protected-mode yes",
    local.tls_on ? [
      "port 0",
      "tls-port ${m.ports.redis}",
      "tls-cert-file ${local.tls_files[id].cert_file}",
      "tls-key-file ${local.tls_files[id].key_file}",
      "tls-ca-cert-file ${local.tls_files[id].ca_file}",
      "# Clients authenticate with their ACL password; replicas present certificates too.",
      "tls-auth-clients optional",
      "tls-replication yes",
    ] : ["port ${m.ports.redis}"],
    "daemonize no",
    "supervised no",
    "dir ${local.dirs[id].state}/redis",
    "appendonly yes",
    "appendfsync everysec",
    "aof-use-rdb-preamble yes",
    "save 900 1 300 100 60 10000",
    "maxmemory-policy noeviction",
    var.fleet.redis_maxmemory == null ? "" : "maxmemory ${var.fleet.redis_maxmemory}",
    m.index == 1 ? "" : "replicaof ${local.redis_of[m.region][0].host} ${local.redis_of[m.region][0].ports.redis}",
    m.index == 1 ? "" : "masteruser replicator",
    "# the default user (locked), user crawler, user replicator (and masterauth on replicas), with their passwords:",
    "include ${local.dirs[id].config}/redis-users.conf",
  ])))}\n" if m.role == "redis" }
}
