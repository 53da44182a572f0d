# The fleet module, planned offline (no provider is involved). Each run renders a two-region fleet, or a
# variant of it, and checks what a machine would receive.

variables {
  fleet = {
    name            = "crawl"
    crawler_version = "v0.1.0"
    artifact_url    = "https://releases.example.org/crawler-v0.1.0.tar.gz"
    artifact_sha256 = "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"
    default_region  = "us-east-1"
    control_region  = "us-east-1"
    regions = {
      us-east-1 = { host_suffixes = [".com"], frontier = 4, fetch = 6 }
      eu-west-1 = { host_suffixes = [".de", ".fr", "co.uk"], frontier = 3, fetch = 5, fetch_runtime = "deno" }
    }
  }
  secrets = {
    admin_token               = "crawl/admin-token"
    redis_password            = "crawl/redis-password"
    nats_coordinator_password = "crawl/nats-coordinator"
    nats_frontier_password    = "crawl/nats-frontier"
    nats_fetch_password       = "crawl/nats-fetch"
    nats_system_password      = "crawl/nats-system"
  }
}

run "counts_per_region_and_role" {
  command = plan

  assert {
    condition     = length([for m in values(output.machines) : m if m.role == "coordinator"]) == 2
    error_message = "Expected one active coordinator and one standby."
  }
  assert {
    condition     = length([for m in values(output.machines) : m if m.role == "nats" && m.region == "us-east-1"]) == 3 && length([for m in values(output.machines) : m if m.role == "nats" && m.region == "eu-west-1"]) == 3
    error_message = "Each region needs a NATS cluster of 3 servers by default."
  }
  assert {
    condition     = length([for m in values(output.machines) : m if m.role == "frontier" && m.region == "us-east-1"]) == 4 && length([for m in values(output.machines) : m if m.role == "frontier" && m.region == "eu-west-1"]) == 3
    error_message = "Frontier node counts do not match the description."
  }
  assert {
    condition     = length([for m in values(output.machines) : m if m.role == "fetch" && m.region == "us-east-1"]) == 6 && length([for m in values(output.machines) : m if m.role == "fetch" && m.region == "eu-west-1"]) == 5
    error_message = "Fetch node counts do not match the description."
  }
  assert {
    condition     = length([for m in values(output.machines) : m if m.role == "redis"]) == 2
    error_message = "Each region needs its own Redis."
  }
  assert {
    condition     = length(output.machines) == 2 + 2 * 3 + 2 * 1 + 4 + 3 + 6 + 5
    error_message = "Unexpected machines in the fleet."
  }
}

run "node_ids_are_unique_across_regions_and_match_their_settings" {
  command = plan

  assert {
    condition     = length(distinct([for id, m in output.machines : lower(id)])) == length(output.machines)
    error_message = "Node ids collide."
  }
  assert {
    condition     = alltrue([for id, m in output.machines : can(regex("^[a-z0-9][a-z0-9-]{0,62}$", id))])
    error_message = "Node ids must be valid in NATS subjects and KV keys (a-z, 0-9, -)."
  }
  assert {
    condition     = alltrue([for id, m in output.machines : m.env["CRAWL_NODE_ID"] == id if contains(["coordinator", "frontier", "fetch"], m.role)])
    error_message = "Every crawler process must be given its own node id."
  }
  assert {
    condition     = alltrue([for id, m in output.machines : m.env["CRAWL_REGION"] == m.region if contains(["frontier", "fetch"], m.role)])
    error_message = "Every node must serve the region it is placed in."
  }
  assert {
    condition     = length(distinct([for id, m in output.machines : m.host])) == length(output.machines)
    error_message = "Every machine needs its own address."
  }
}

run "every_region_agrees_on_rules_partitions_and_default" {
  command = plan

  assert {
    condition     = output.region_rules == "eu-west-1=.de,.fr,.co.uk;us-east-1=.com"
    error_message = "Region rules must be rendered as the processes parse them: ${output.region_rules}"
  }
  assert {
    condition = alltrue([for m in values(output.machines) :
      m.env["CRAWL_REGION_RULES"] == output.region_rules && m.env["CRAWL_PARTITIONS"] == "64" && m.env["CRAWL_DEFAULT_REGION"] == "us-east-1"
    if contains(["coordinator", "frontier", "fetch"], m.role)])
    error_message = "Coordinator, frontier and fetch nodes must share the region rules, partition count and default region."
  }
  assert {
    condition     = alltrue([for m in values(output.machines) : strcontains(m.env["CRAWL_NATS_URL"], "${m.region}-nats-") && !strcontains(m.env["CRAWL_NATS_URL"], m.region == "us-east-1" ? "eu-west-1" : "us-east-1") if contains(["frontier", "fetch"], m.role)])
    error_message = "A node must talk to its own region's NATS servers only."
  }
  assert {
    condition     = alltrue([for m in values(output.machines) : strcontains(m.secret_env["CRAWL_REDIS_URL"], "@${m.region}-redis-1.") if contains(["frontier", "fetch"], m.role)])
    error_message = "A node must use its own region's Redis."
  }
}

run "every_region_gateway_names_every_other_region" {
  command = plan

  assert {
    condition = alltrue([for id, conf in output.nats_configs : alltrue([
      for r in ["us-east-1", "eu-west-1"] : strcontains(conf, "{ name: \"${r}\", urls: [") if r != output.machines[id].region
    ])])
    error_message = "Every NATS server's gateway block must name every other region."
  }
  assert {
    condition     = alltrue([for id, conf in output.nats_configs : !strcontains(conf, "{ name: \"${output.machines[id].region}\", urls")])
    error_message = "A gateway must not list its own region."
  }
  assert {
    condition = alltrue([for id, conf in output.nats_configs : alltrue([
      for peer in output.regions[output.machines[id].region].nats : strcontains(conf, "nats-route://${peer}.crawl.internal:6222")
    ])])
    error_message = "Every NATS server must route to every server of its region."
  }
  assert {
    condition     = alltrue([for r, info in output.regions : toset(info.gateways) == setsubtract(toset(["us-east-1", "eu-west-1"]), [r])])
    error_message = "The regions output must list each region's gateway peers."
  }
  assert {
    condition     = alltrue([for conf in values(output.nats_configs) : strcontains(conf, "jetstream {") && strcontains(conf, "store_dir: \"/var/lib/crawler/nats\"")])
    error_message = "Every NATS server needs JetStream with a store directory."
  }
}

run "no_secret_value_anywhere_only_names" {
  command = plan

  # The module never receives a secret value; settings that carry one are templates filled at boot.
  assert {
    condition     = alltrue([for m in values(output.machines) : !contains(keys(m.env), "CRAWL_ADMIN_TOKEN") && !contains(keys(m.env), "CRAWL_REDIS_URL") && !contains(keys(m.env), "CRAWL_NATS_PASSWORD")])
    error_message = "Secret-bearing settings must not be in the plain environment."
  }
  assert {
    condition     = alltrue([for conf in values(output.nats_configs) : length(regexall("password: \\$NATS_PASSWORD_[A-Z]+[\\s}]", conf)) == 4 && length(regexall("password:", conf)) == 4])
    error_message = "NATS passwords must come from the server's environment, never be written in its configuration."
  }
  assert {
    condition     = alltrue([for conf in values(output.redis_configs) : !strcontains(conf, "requirepass") && !strcontains(conf, ">") && strcontains(conf, "include /etc/crawler/redis-users.conf")])
    error_message = "redis.conf must take its users and passwords from the boot-time include file."
  }
  assert {
    condition     = output.machines["us-east-1-fetch-1"].secret_names == { nats_fetch_password = "crawl/nats-fetch", redis_password = "crawl/redis-password" }
    error_message = "A fetch node must read only its own NATS password and the Redis password."
  }
  assert {
    condition     = output.machines["coordinator-1"].secret_names == { admin_token = "crawl/admin-token", nats_coordinator_password = "crawl/nats-coordinator" }
    error_message = "A coordinator must read only the admin token and its NATS password."
  }
  assert {
    condition     = !contains(keys(output.machines["us-east-1-redis-1"].secret_names), "admin_token") && !contains(keys(output.machines["us-east-1-nats-1"].secret_names), "admin_token")
    error_message = "Only coordinators and frontier nodes (for the drain) may read the admin token."
  }
}

run "redis_persists_and_authenticates" {
  command = plan

  assert {
    condition     = alltrue([for conf in values(output.redis_configs) : strcontains(conf, "appendonly yes\n") && strcontains(conf, "appendfsync everysec\n") && strcontains(conf, "maxmemory-policy noeviction\n")])
    error_message = "Redis must persist (AOF) and never evict the seen-sets."
  }
  assert {
    condition     = strcontains(output.machines["us-east-1-redis-1"].files["/usr/local/lib/crawler/load-secrets"].content, "printf 'user default on #%s ~* &* +@all\\n' \"$(head -c 32 /dev/urandom | sha256sum")
    error_message = "The default Redis user must be locked by a password nobody knows (not switched off: AOF replay runs as it)."
  }
}

run "units_drain_frontier_nodes_and_give_fetch_nodes_a_grace_period" {
  command = plan

  assert {
    condition     = strcontains(output.machines["eu-west-1-frontier-2"].files["/etc/systemd/system/crawler-frontier.service"].content, "ExecStop=+/usr/local/lib/crawler/drain-frontier $MAINPID\n")
    error_message = "A frontier node's unit must drain it before stopping."
  }
  assert {
    condition     = strcontains(output.machines["eu-west-1-frontier-2"].files["/etc/systemd/system/crawler-frontier.service"].content, "TimeoutStopSec=340\n")
    error_message = "The frontier unit's stop timeout must cover the drain (300 s) and the stop grace (10 s)."
  }
  assert {
    condition     = strcontains(output.machines["eu-west-1-frontier-2"].files["/usr/local/lib/crawler/drain-frontier"].content, "for c in coordinator-1.crawl.internal:7400 coordinator-2.crawl.internal:7400; do")
    error_message = "The drain must try every coordinator, active and standby."
  }
  assert {
    condition     = output.machines["us-east-1-fetch-1"].env["CRAWL_STOP_GRACE"] == "25s" && strcontains(output.machines["us-east-1-fetch-1"].files["/etc/systemd/system/crawler-fetch.service"].content, "TimeoutStopSec=40\n")
    error_message = "A fetch node stops with a grace period, and systemd waits for it."
  }
  assert {
    condition     = output.machines["eu-west-1-fetch-1"].argv[0] == "/usr/local/bin/deno" && contains(output.machines["eu-west-1-fetch-1"].argv, "--allow-write=/var/lib/crawler/warc")
    error_message = "Deno fetch nodes run with write access to their WARC directory only."
  }
}

run "auto_scaling_fetch_group_names_each_node_at_boot" {
  command = plan

  assert {
    condition     = !contains(keys(output.fetch_groups["eu-west-1"].env), "CRAWL_NODE_ID")
    error_message = "The fetch group's shared configuration must not fix a node id."
  }
  assert {
    condition     = strcontains(output.fetch_groups["eu-west-1"].user_data, "CRAWL_NODE_ID=%s-%s")
    error_message = "A fetch group machine must derive its node id at boot."
  }
  assert {
    condition     = alltrue([for u in concat([for m in values(output.machines) : m.user_data], [for g in values(output.fetch_groups) : g.user_data]) : startswith(u, "#cloud-config\n") && length(base64gzip(u)) < 16384])
    error_message = "User data must be cloud-config and stay under the 16 KiB limit once gzipped."
  }
}

run "nats_users_follow_the_security_switch" {
  command = plan

  variables {
    security = { nats_auth = false }
  }
  assert {
    condition     = !contains(keys(output.machines["coordinator-1"].env), "CRAWL_NATS_USER") && !contains(keys(output.machines["coordinator-1"].secret_env), "CRAWL_NATS_PASSWORD") && !strcontains(output.nats_configs["us-east-1-nats-1"], "accounts")
    error_message = "Without NATS auth no users are rendered."
  }
  assert {
    condition     = length(output.pending_process_settings) == 0 && output.machines["us-east-1-frontier-1"].env["CRAWL_NATS_REPLICAS"] == "3"
    error_message = "A 3-server NATS cluster per region gives every role 3 stream replicas, a setting the processes read."
  }
}

run "nats_users_are_read_by_every_role" {
  command = plan

  assert {
    condition     = output.machines["coordinator-1"].env["CRAWL_NATS_USER"] == "coordinator" && output.machines["us-east-1-fetch-1"].secret_env["CRAWL_NATS_PASSWORD"] == "{{nats_fetch_password}}" && strcontains(output.nats_configs["us-east-1-nats-1"], "accounts")
    error_message = "With NATS auth (the default) every role logs in as its own user."
  }
  assert {
    condition     = length(output.pending_process_settings) == 0
    error_message = "The processes read the NATS user settings and stream replicas: nothing is pending."
  }
}

run "warc_upload_gets_its_endpoint_region_and_credentials_from_secrets" {
  command = plan

  variables {
    fleet = merge(var.fleet, {
      warc_upload          = "s3://crawl-warc-{region}/pages"
      warc_upload_endpoint = "http://store.internal:9000"
      warc_upload_region   = "{region}"
    })
    secrets = merge(var.secrets, {
      warc_access_key_id     = "crawl/warc-key-id"
      warc_secret_access_key = "crawl/warc-secret-key"
    })
  }
  assert {
    condition     = output.machines["eu-west-1-fetch-1"].env["CRAWL_WARC_UPLOAD"] == "s3://crawl-warc-eu-west-1/pages/eu-west-1" && output.machines["eu-west-1-fetch-1"].env["AWS_REGION"] == "eu-west-1" && output.machines["eu-west-1-fetch-1"].env["AWS_ENDPOINT_URL_S3"] == "http://store.internal:9000" && output.fetch_groups["us-east-1"].env["AWS_REGION"] == "us-east-1"
    error_message = "Each region's fetch nodes upload under their own region's bucket and prefix, signed for their region, to the given endpoint."
  }
  assert {
    condition     = output.machines["us-east-1-fetch-1"].secret_env["AWS_SECRET_ACCESS_KEY"] == "{{warc_secret_access_key}}" && output.fetch_groups["eu-west-1"].secret_names["warc_access_key_id"] == "crawl/warc-key-id" && !contains(keys(output.machines["us-east-1-fetch-1"].env), "AWS_ACCESS_KEY_ID")
    error_message = "The store's credentials are secrets, read at boot, never in the plain environment."
  }
  assert {
    condition     = !contains(keys(output.machines["us-east-1-frontier-1"].secret_names), "warc_access_key_id") && !contains(keys(output.machines["coordinator-1"].secret_names), "warc_secret_access_key")
    error_message = "Only fetch nodes read the WARC store's credentials."
  }
  assert {
    condition     = strcontains(output.machines["us-east-1-fetch-1"].files["/usr/local/lib/crawler/load-secrets"].content, "s_warc_secret_access_key=$(get 'crawl/warc-secret-key' key)")
    error_message = "The store's secret key may hold + / = (AWS secret keys do)."
  }
  assert {
    condition     = !contains(keys(output.pending_process_settings), "CRAWL_WARC_UPLOAD")
    error_message = "With credentials the fetch nodes read everything the upload needs."
  }
}

run "warc_upload_without_credentials_is_pending" {
  command = plan

  variables {
    fleet = merge(var.fleet, { warc_upload = "s3://crawl-warc" })
  }
  assert {
    condition     = contains(keys(output.pending_process_settings), "CRAWL_WARC_UPLOAD") && !contains(keys(output.machines["us-east-1-fetch-1"].secret_env), "AWS_ACCESS_KEY_ID")
    error_message = "Without key secrets the fetch nodes have no credentials for the upload: it is pending."
  }
}
