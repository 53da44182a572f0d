# Each boot target's files and its cloud-init user data, which writes the files, creates the crawler
# user, installs what the role runs, and enables its units. The user data is plain text here; a cloud
# module gzips it (base64gzip) to stay under the providers' 16 KiB limit.

locals {
  crawler_roles = ["coordinator", "frontier", "fetch"]

  files = { for id, t in local.targets : id => merge(
    {
      "${local.dirs[id].bin}/crawler-secret"                   = { mode = "0755", content = local.secret_reader_script[id] }
      "${local.dirs[id].bin}/load-secrets"                     = { mode = "0700", content = local.load_secrets[id] }
      "${local.dirs[id].config}/${t.role}.env"                 = { mode = "0644", content = local.env_file[id] }
      "/etc/systemd/system/crawler-secrets.service"            = { mode = "0644", content = local.secrets_unit[id] }
      "/etc/systemd/system/${local.unit_name[t.role]}.service" = { mode = "0644", content = local.service_unit[id] }
    },
    t.role == "nats" ? { "${local.dirs[id].config}/nats-server.conf" = { mode = "0644", content = local.nats_conf[id] } } : {},
    t.role == "redis" ? { "${local.dirs[id].config}/redis.conf" = { mode = "0644", content = local.redis_conf[id] } } : {},
    contains(local.crawler_roles, t.role) ? { "${local.dirs[id].bin}/install-crawler" = { mode = "0755", content = local.install_crawler } } : {},
    t.role == "frontier" ? {
      "${local.dirs[id].bin}/drain-frontier"    = { mode = "0755", content = local.drain_frontier[id] }
      "${local.dirs[id].bin}/prepare-data-disk" = { mode = "0755", content = local.prepare_data_disk[id] }
    } : {},
  ) }

  packages = {
    coordinator = concat(["nodejs", "npm", "curl", "ca-certificates"], var.extra_packages)
    frontier    = concat(["nodejs", "npm", "curl", "ca-certificates", "jq"], var.extra_packages)
    fetch       = concat(["nodejs", "npm", "curl", "ca-certificates"], var.extra_packages)
    nats        = ["nats-server"]
    redis       = ["redis-server"]
  }

  user_data = { for id, t in local.targets : id => "#cloud-config\n${yamlencode({
    package_update = true
    packages       = local.packages[t.role]
    users = [{
      name           = "crawler"
      system         = true
      shell          = "/usr/sbin/nologin"
      homedir        = local.dirs[id].state
      no_create_home = true
    }]
    write_files = [for path in sort(keys(local.files[id])) : {
      path        = path
      permissions = local.files[id][path].mode
      owner       = "root:root"
      content     = local.files[id][path].content
    }]
    runcmd = concat(
      # Debian starts its own nats-server / redis-server on install; ours replace them.
      t.role == "nats" ? [["sh", "-c", "systemctl disable --now nats-server.service || true"]] : [],
      t.role == "redis" ? [["sh", "-c", "systemctl disable --now redis-server.service || true"]] : [],
      contains(local.crawler_roles, t.role) ? [["${local.dirs[id].bin}/install-crawler", t.role == "fetch" ? var.fleet.regions[t.region].fetch_runtime : "bun"]] : [],
      t.role == "frontier" ? [["${local.dirs[id].bin}/prepare-data-disk"]] : [],
      # A fetch node of an auto-scaling group names itself after its machine id (stable across reboots).
      t.node_id == null ? [["sh", "-c", "printf 'CRAWL_NODE_ID=%s-%s\\n' '${id}' \"$(cut -c1-12 /etc/machine-id)\" > '${local.dirs[id].config}/node-id.env'"]] : [],
      [
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", "--now", "crawler-secrets.service", "${local.unit_name[t.role]}.service"],
      ],
    )
  })}" }

  rendered = { for id, t in local.targets : id => {
    files     = local.files[id]
    user_data = local.user_data[id]
  } }
}
