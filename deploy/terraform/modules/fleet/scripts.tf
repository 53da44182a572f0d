# The helper scripts a machine runs: reading its secrets at boot, draining a frontier node before it
# stops, installing the crawler release, and preparing a frontier node's data disk. Each is rendered per
# boot target: every machine, plus one fetch-node configuration per region for an auto-scaling group.

locals {
  targets = merge(
    { for id, m in local.machines : id => {
      role     = m.role
      region   = m.region
      node_id  = id
      identity = id
      process  = local.process[id]
    } },
    { for r in local.region_names : "${r}-fetch" => {
      role     = "fetch"
      region   = r
      node_id  = tostring(null)
      identity = "${r}-fetch"
      process  = local.group_process["${r}-fetch"]
    } },
  )

  # By default a secret is a file under <config_dir>/secret-store/ (tests, hand-made machines); a cloud
  # module replaces the body with its secret store's client.
  secret_reader_script = { for id, t in local.targets : id => join("\n", [
    "#!/bin/sh",
    "# crawler-secret NAME: prints the value of the secret NAME. Rendered by the fleet module.",
    "set -eu",
    coalesce(var.secret_reader, join("\n", [
      "case \"$1\" in */../*|../*|*/..|..) echo \"crawler-secret: bad secret name $1\" >&2; exit 2;; esac",
      "exec cat \"${local.dirs[id].config}/secret-store/$1\"",
    ])),
    "",
  ]) }

  # Secret keys (of var.secrets) each target needs: those its settings name, plus the Redis password on a
  # Redis server, plus the admin token for a frontier node's drain.
  secret_keys = { for id, t in local.targets : id => sort(distinct(concat(
    flatten([for v in values(t.process.secret_env) : [for k in regexall("\\{\\{([a-z_]+)\\}\\}", v) : k[0]]]),
    t.role == "redis" ? ["redis_password"] : [],
    t.role == "frontier" ? ["admin_token"] : [],
  ))) }

  load_secrets = { for id, t in local.targets : id => join("\n", flatten([
    "#!/bin/sh",
    "# load-secrets of ${id}: reads the secrets this machine needs, by name, and writes them where its",
    "# services read them (root-only files; systemd passes them to the service). Rendered by the fleet module.",
    "set -eu",
    "umask 077",
    "fail() { echo \"load-secrets: $*\" >&2; exit 1; }",
    "# get NAME [key]: a secret's value, URL-safe (it may travel in a URL); a key for the WARC store may also",
    "# hold + / = (AWS secret keys do): it only ever goes into an environment file.",
    "get() {",
    "  value=$('${local.dirs[id].bin}/crawler-secret' \"$1\") || fail \"cannot read the secret $1\"",
    "  case \"$value\" in ''|*[!A-Za-z0-9._~+/=-]*) fail \"the secret $1 is empty or holds characters other than A-Z a-z 0-9 . _ ~ - (and + / = in a key)\";; esac",
    "  if [ \"$${2:-}\" != key ]; then case \"$value\" in *[+/=]*) fail \"the secret $1 is not URL-safe (allowed: A-Z a-z 0-9 . _ ~ -)\";; esac; fi",
    "  printf '%s' \"$value\"",
    "}",
    "# Files the service user reads itself (redis-server reads its users file) are handed to it.",
    "own() { if [ \"$(id -u)\" = 0 ] && id crawler >/dev/null 2>&1; then chown crawler \"$1\"; fi; }",
    "mkdir -p '${local.dirs[id].config}'",
    [for k in local.secret_keys[id] : "s_${k}=$(get '${var.secrets[k]}'${k == "warc_secret_access_key" ? " key" : ""})"],
    "tmp='${local.dirs[id].config}/secrets.env.tmp'",
    "{",
    "  : # the service's settings that carry a secret (none on some machines)",
    [for name, tpl in t.process.secret_env : "  printf '%s\\n' \"${name}=${replace(tpl, "/\\{\\{([a-z_]+)\\}\\}/", "$${s_$1}")}\""],
    "} > \"$tmp\"",
    "mv \"$tmp\" '${local.dirs[id].config}/secrets.env'",
    t.role == "frontier" ? [
      "printf 'CRAWLCTL_TOKEN=%s\\n' \"$s_admin_token\" > '${local.dirs[id].config}/crawlctl.env.tmp'",
      "mv '${local.dirs[id].config}/crawlctl.env.tmp' '${local.dirs[id].config}/crawlctl.env'",
    ] : [],
    t.role == "redis" ? concat([
      "{",
      "  # Not `user default off`: Redis 7.0 replays the AOF as the default user and drops every MULTI/EXEC",
      "  # (the seen-set's scripts) a disabled user may not run, so a restart would lose them. The default",
      "  # user keeps its rights behind a password nobody knows (a random SHA-256), so clients still need AUTH.",
      "  printf 'user default on #%s ~* &* +@all\\n' \"$(head -c 32 /dev/urandom | sha256sum | cut -d' ' -f1)\"",
      "  printf '%s\\n' \"user ${local.redis_user} on >$s_redis_password ${local.redis_acl.crawler}\"",
      "  printf '%s\\n' \"user replicator on >$s_redis_password ${local.redis_acl.replicator}\"",
      ], try(local.machines[id].index, 1) == 1 ? [] : ["  printf '%s\\n' \"masterauth $s_redis_password\""], [
      "} > '${local.dirs[id].config}/redis-users.conf.tmp'",
      "own '${local.dirs[id].config}/redis-users.conf.tmp'",
      "mv '${local.dirs[id].config}/redis-users.conf.tmp' '${local.dirs[id].config}/redis-users.conf'",
    ]) : [],
    local.tls_on && local.tls.secret_prefix != null ? [
      "# TLS files: the fleet's CA, and this machine's certificate and key.",
      "mkdir -p '${dirname(local.tls_files[id].cert_file)}' '${dirname(local.tls_files[id].key_file)}' '${dirname(local.tls_files[id].ca_file)}'",
      "'${local.dirs[id].bin}/crawler-secret' '${local.tls.secret_prefix}/ca.pem' > '${local.tls_files[id].ca_file}.tmp' || fail 'cannot read the CA certificate'",
      "'${local.dirs[id].bin}/crawler-secret' '${local.tls.secret_prefix}/${t.identity}.pem' > '${local.tls_files[id].cert_file}.tmp' || fail \"cannot read this machine's certificate\"",
      "'${local.dirs[id].bin}/crawler-secret' '${local.tls.secret_prefix}/${t.identity}.key' > '${local.tls_files[id].key_file}.tmp' || fail \"cannot read this machine's key\"",
      "chmod 0644 '${local.tls_files[id].ca_file}.tmp' '${local.tls_files[id].cert_file}.tmp'",
      "own '${local.tls_files[id].key_file}.tmp'",
      "mv '${local.tls_files[id].ca_file}.tmp' '${local.tls_files[id].ca_file}'",
      "mv '${local.tls_files[id].cert_file}.tmp' '${local.tls_files[id].cert_file}'",
      "mv '${local.tls_files[id].key_file}.tmp' '${local.tls_files[id].key_file}'",
    ] : [],
    "",
  ])) }

  coordinator_grpc_addresses = [for c in local.coordinators : "${c.host}:${c.ports.grpc}"]

  # ExecStop of a frontier node: drain first, so its partitions move by handoff and not by death.
  drain_frontier = { for id, t in local.targets : id => <<-EOT
    #!/bin/sh
    # drain-frontier PID: run by systemd before it stops this frontier node. Asks a coordinator to drain the
    # node, then waits until the node holds no partition (they moved to other nodes by handoff), for at most
    # ${var.fleet.drain_timeout_seconds} s; systemd then sends SIGTERM, and the node gives back what is still
    # in flight (--stop-grace). Never fails the stop: a drain that cannot happen leaves the node to stop as
    # it would have. Rendered by the fleet module.
    set -u
    if [ -z "$${1:-}" ]; then echo "drain-frontier: the node is not running; nothing to drain"; exit 0; fi
    node="$${CRAWL_NODE_ID:?CRAWL_NODE_ID is not set}"
    . '${local.dirs[id].config}/crawlctl.env'
    export CRAWLCTL_TOKEN%{if local.tls_on}
    export CRAWLCTL_TLS_CA_FILE='${local.tls_files[id].ca_file}'%{endif}
    deadline=$(( $(date +%s) + ${var.fleet.drain_timeout_seconds} ))
    crawlctl() { '${var.paths.bun}' '${var.paths.install_dir}/cli/main.ts' "$@"; }
    used=""
    for c in ${join(" ", local.coordinator_grpc_addresses)}; do
      if crawlctl --coordinator "$c" node drain "$node"; then used="$c"; break; fi
    done
    if [ -z "$used" ]; then echo "drain-frontier: no coordinator took the drain; stopping without it" >&2; exit 0; fi
    left=unknown
    while [ "$(date +%s)" -lt "$deadline" ]; do
      left=$(crawlctl --coordinator "$used" nodes --json | jq -r --arg id "$node" '[.[] | select(.id == $id) | .partitions | length] | add // 0') || left=unknown
      if [ "$left" = 0 ]; then echo "drain-frontier: $node holds no partition; stopping"; exit 0; fi
      sleep 2
    done
    echo "drain-frontier: $node still holds $left partition(s) after ${var.fleet.drain_timeout_seconds} s; stopping anyway" >&2
    exit 0
  EOT
  if t.role == "frontier" }

  install_crawler = <<-EOT
    #!/bin/sh
    # install-crawler: puts crawler ${var.fleet.crawler_version} in ${var.paths.install_dir} (once per version), with Bun
    # ${var.fleet.bun_version} and, for Deno fetch nodes, Deno ${var.fleet.deno_version}. Rendered by the fleet module.
    set -eu
    want='${var.fleet.crawler_version}'
    if [ -f '${var.paths.install_dir}/.crawler-version' ] && [ "$(cat '${var.paths.install_dir}/.crawler-version')" = "$want" ]; then exit 0; fi
    if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != '${var.fleet.bun_version}' ]; then npm install -g 'bun@${var.fleet.bun_version}'; fi
    if [ "$${1:-}" = deno ] && ! command -v deno >/dev/null 2>&1; then npm install -g 'deno@${var.fleet.deno_version}'; fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    case '${var.fleet.artifact_url}' in
      s3://*) aws s3 cp '${var.fleet.artifact_url}' "$tmp/crawler.tar.gz" ;;
      *) curl -fsSL --retry 5 -o "$tmp/crawler.tar.gz" '${var.fleet.artifact_url}' ;;
    esac
    echo '${var.fleet.artifact_sha256}  '"$tmp/crawler.tar.gz" | sha256sum -c - >/dev/null || { echo "install-crawler: checksum mismatch" >&2; exit 1; }
    rm -rf '${var.paths.install_dir}.new'
    mkdir -p '${var.paths.install_dir}.new'
    tar -xzf "$tmp/crawler.tar.gz" -C '${var.paths.install_dir}.new' --strip-components=1
    (cd '${var.paths.install_dir}.new' && bun install --frozen-lockfile --production)
    echo "$want" > '${var.paths.install_dir}.new/.crawler-version'
    rm -rf '${var.paths.install_dir}.old'
    if [ -d '${var.paths.install_dir}' ]; then mv '${var.paths.install_dir}' '${var.paths.install_dir}.old'; fi
    mv '${var.paths.install_dir}.new' '${var.paths.install_dir}'
  EOT

  # A frontier node's store must outlive its instance: the data disk carries the label crawler-data; a
  # replacement instance finds it by label and mounts it, and only a blank disk is ever formatted.
  prepare_data_disk = { for id, t in local.targets : id => <<-EOT
    #!/bin/sh
    # prepare-data-disk: mounts the disk labelled crawler-data at ${local.dirs[id].state}, formatting it
    # only when no such disk exists and exactly one blank, unmounted disk does. Rendered by the fleet module.
    set -eu
    label=crawler-data
    dev=$(blkid -L "$label" 2>/dev/null || true)
    tries=0
    while [ -z "$dev" ] && [ "$tries" -lt 60 ]; do
      # A blank disk: no partitions, no filesystem, not mounted. Attached volumes can take a while to appear.
      blank=$(lsblk -dpno NAME,TYPE | awk '$2 == "disk" {print $1}' | while read -r d; do
        if [ -z "$(lsblk -no FSTYPE "$d" | tr -d '[:space:]')" ] && [ "$(lsblk -no NAME "$d" | wc -l)" = 1 ]; then echo "$d"; fi
      done)
      if [ "$(echo "$blank" | grep -c .)" = 1 ]; then mkfs.ext4 -q -L "$label" "$blank"; dev=$(blkid -L "$label"); break; fi
      tries=$((tries + 1)); sleep 5
      dev=$(blkid -L "$label" 2>/dev/null || true)
    done
    [ -n "$dev" ] || { echo "prepare-data-disk: no disk labelled $label and no single blank disk" >&2; exit 1; }
    mkdir -p '${local.dirs[id].state}'
    grep -q "LABEL=$label" /etc/fstab || echo "LABEL=$label ${local.dirs[id].state} ext4 defaults,nofail 0 2" >> /etc/fstab
    mountpoint -q '${local.dirs[id].state}' || mount '${local.dirs[id].state}'
  EOT
  if t.role == "frontier" }
}
