# systemd units and environment files of every boot target.
#
# Every service runs as the unprivileged user crawler, restarts when it dies, and reads its settings from
# <config_dir>/<role>.env (no secrets) and <config_dir>/secrets.env (written at boot by
# crawler-secrets.service, root-only). Stopping follows the upgrade rules of issue 11:
#   - a frontier node drains first (ExecStop runs drain-frontier, bounded by the drain timeout), so its
#     partitions move by handoff; then SIGTERM gives back what is still in flight (--stop-grace);
#   - a fetch node gets SIGTERM, stops taking tasks and finishes or releases what it holds (--stop-grace);
# TimeoutStopSec covers both steps, so systemd never kills a node that is still handing over.

locals {
  unit_name = {
    coordinator = "crawler-coordinator"
    frontier    = "crawler-frontier"
    fetch       = "crawler-fetch"
    nats        = "crawler-nats"
    redis       = "crawler-redis"
  }

  env_file = { for id, t in local.targets : id => join("", [
    for k in sort(keys(t.process.env)) : "${k}=\"${replace(replace(replace(t.process.env[k], "\\", "\\\\"), "\"", "\\\""), "$", "\\$")}\"\n"
  ]) }

  stop_timeout = {
    coordinator = 30
    frontier    = var.fleet.drain_timeout_seconds + var.fleet.frontier_stop_grace_seconds + 30
    fetch       = var.fleet.fetch_stop_grace_seconds + 15
    nats        = 60
    redis       = 60
  }

  # Directories a service writes, created (and handed to crawler) as root before each start: a frontier
  # node's data disk may just have been mounted.
  state_subdir = {
    coordinator = []
    frontier    = ["frontier"]
    fetch       = ["warc"]
    nats        = ["nats"]
    redis       = ["redis"]
  }

  secrets_unit = { for id, t in local.targets : id => <<-EOT
    [Unit]
    Description=crawler: read this machine's secrets (fleet ${var.fleet.name})
    Wants=network-online.target
    After=network-online.target

    [Service]
    Type=oneshot
    RemainAfterExit=yes
    ExecStart=${local.dirs[id].bin}/load-secrets
    Restart=on-failure
    RestartSec=10

    [Install]
    WantedBy=multi-user.target
  EOT
  }

  service_unit = { for id, t in local.targets : id => join("\n", flatten([
    "[Unit]",
    "Description=crawler ${t.role} ${t.node_id == null ? "(auto-scaling group)" : t.node_id}, region ${t.region}, fleet ${var.fleet.name}",
    "Wants=network-online.target",
    "After=network-online.target crawler-secrets.service",
    "Requires=crawler-secrets.service",
    t.role == "frontier" ? ["RequiresMountsFor=${local.dirs[id].state}"] : [],
    "",
    "[Service]",
    "Type=simple",
    "User=crawler",
    "Group=crawler",
    "WorkingDirectory=${contains(["nats", "redis"], t.role) ? local.dirs[id].state : var.paths.install_dir}",
    "EnvironmentFile=${local.dirs[id].config}/${t.role}.env",
    "EnvironmentFile=${local.dirs[id].config}/secrets.env",
    t.node_id == null ? ["EnvironmentFile=${local.dirs[id].config}/node-id.env"] : [],
    [for d in local.state_subdir[t.role] : "ExecStartPre=+/usr/bin/install -d -o crawler -g crawler -m 0750 ${local.dirs[id].state}/${d}"],
    "ExecStart=${join(" ", t.process.argv)}",
    t.role == "frontier" ? ["ExecStop=+${local.dirs[id].bin}/drain-frontier $MAINPID"] : [],
    t.role == "nats" ? ["ExecReload=/bin/kill -HUP $MAINPID"] : [],
    "KillSignal=SIGTERM",
    "TimeoutStopSec=${local.stop_timeout[t.role]}",
    "Restart=always",
    "RestartSec=2",
    "LimitNOFILE=1048576",
    "NoNewPrivileges=yes",
    "PrivateTmp=yes",
    "ProtectSystem=full",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ])) }
}
