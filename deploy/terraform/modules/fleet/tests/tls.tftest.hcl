# TLS on: every link carries certificate paths, Redis listens with TLS only, NATS routes and gateways
# verify each other.

variables {
  fleet = {
    name            = "crawl"
    crawler_version = "v0.1.0"
    artifact_url    = "https://releases.example.org/crawler-v0.1.0.tar.gz"
    artifact_sha256 = "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"
    default_region  = "us-east-1"
    control_region  = "us-east-1"
    regions = {
      us-east-1 = { frontier = 1, fetch = 1 }
      eu-west-1 = { host_suffixes = [".de"], frontier = 1, fetch = 1 }
    }
  }
  secrets = {
    admin_token               = "t"
    redis_password            = "r"
    nats_coordinator_password = "nc"
    nats_frontier_password    = "nf"
    nats_fetch_password       = "nx"
    nats_system_password      = "ns"
  }
  security = {
    tls = { enabled = true, secret_prefix = "crawl/tls" }
  }
}

run "tls_everywhere" {
  command = plan

  assert {
    condition     = alltrue([for conf in values(output.nats_configs) : length(regexall("cert_file: \"/etc/crawler/tls/node.pem\"", conf)) == 3 && length(regexall("verify: true", conf)) == 2])
    error_message = "NATS needs TLS on clients, routes and gateways, with routes and gateways verifying each other."
  }
  assert {
    condition     = alltrue([for conf in values(output.redis_configs) : strcontains(conf, "port 0\n") && strcontains(conf, "tls-port 6379\n") && strcontains(conf, "tls-replication yes\n")])
    error_message = "Redis must accept TLS connections only."
  }
  assert {
    condition     = startswith(output.machines["us-east-1-frontier-1"].secret_env["CRAWL_REDIS_URL"], "rediss://crawler:{{redis_password}}@")
    error_message = "Clients must reach Redis over TLS."
  }
  assert {
    condition     = output.machines["coordinator-1"].env["CRAWL_GRPC_TLS_CERT_FILE"] == "/etc/crawler/tls/node.pem" && output.machines["coordinator-1"].env["CRAWL_HTTP_TLS_KEY_FILE"] == "/etc/crawler/tls/node.key"
    error_message = "The coordinator's gRPC and admin API need their certificate."
  }
  assert {
    condition     = contains(output.machines["eu-west-1-fetch-1"].argv, "--allow-read=/var/lib/crawler/warc,/etc/crawler/tls/ca.pem,/etc/crawler/tls/node.pem,/etc/crawler/tls/node.key") || output.machines["eu-west-1-fetch-1"].argv[0] == "/usr/local/bin/bun"
    error_message = "A Deno fetch node must be allowed to read the TLS files."
  }
  assert {
    condition     = strcontains(output.machines["eu-west-1-fetch-1"].files["/usr/local/lib/crawler/load-secrets"].content, "'crawl/tls/eu-west-1-fetch-1.pem'") && strcontains(output.fetch_groups["eu-west-1"].files["/usr/local/lib/crawler/load-secrets"].content, "'crawl/tls/eu-west-1-fetch.key'")
    error_message = "Each machine fetches its own certificate; a fetch group shares one per region."
  }
  assert {
    condition     = alltrue([for id in ["us-east-1-frontier-1", "us-east-1-fetch-1"] : output.machines[id].env["CRAWL_HTTP_TLS_CERT_FILE"] == "/etc/crawler/tls/node.pem"]) && output.fetch_groups["us-east-1"].env["CRAWL_HTTP_TLS_KEY_FILE"] == "/etc/crawler/tls/node.key"
    error_message = "Every node's /metrics listener serves HTTPS with the machine's certificate."
  }
  assert {
    condition     = length([for k in keys(output.pending_process_settings) : k if can(regex("TLS|NATS_USER|NATS_PASSWORD", k))]) == 0 && output.coordinator_admin_urls[0] == "https://coordinator-1.crawl.internal:7480"
    error_message = "The processes read every TLS and NATS user setting: none may be listed as pending."
  }
}

run "a_machine_may_have_its_own_tls_files" {
  command = plan

  variables {
    machine_overrides = {
      "us-east-1-frontier-1" = { tls_dir = "/srv/f1/tls" }
      "us-east-1-nats-1"     = { tls_dir = "/srv/n1/tls" }
    }
  }
  assert {
    condition     = output.machines["us-east-1-frontier-1"].env["CRAWL_GRPC_TLS_CERT_FILE"] == "/srv/f1/tls/node.pem" && output.machines["us-east-1-frontier-1"].env["CRAWL_NATS_TLS_CA_FILE"] == "/srv/f1/tls/ca.pem" && output.machines["eu-west-1-frontier-1"].env["CRAWL_GRPC_TLS_CERT_FILE"] == "/etc/crawler/tls/node.pem"
    error_message = "A machine's tls_dir replaces the fleet's TLS paths for that machine only."
  }
  assert {
    condition     = strcontains(output.nats_configs["us-east-1-nats-1"], "cert_file: \"/srv/n1/tls/node.pem\"") && strcontains(output.machines["us-east-1-frontier-1"].files["/usr/local/lib/crawler/load-secrets"].content, "> '/srv/f1/tls/node.key.tmp'")
    error_message = "The machine's servers and its boot script use its own TLS files."
  }
  assert {
    condition     = strcontains(output.machines["us-east-1-frontier-1"].files["/usr/local/lib/crawler/drain-frontier"].content, "export CRAWLCTL_TLS_CA_FILE='/srv/f1/tls/ca.pem'")
    error_message = "The drain before a stop reaches the coordinator's gRPC over TLS."
  }
}
