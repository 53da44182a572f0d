# Each crawler process's command line and CRAWL_* environment, with the flag and env var names of
# docs/configuration.md (coordinator/config.ts, frontier-node/node/config.ts, fetch-node/config.ts).
#
# Secrets never appear here: a setting that carries one (the admin token, the Redis URL with its password,
# a NATS password) is a template in `secret_env`, where {{key}} stands for the secret var.secrets[key]; the
# machine fills it in at boot (scripts.tf, load-secrets) into <config_dir>/secrets.env.

locals {
  tls_on    = var.security.tls.enabled
  nats_auth = var.security.nats_auth
  tls       = var.security.tls

  redis_scheme  = local.tls_on ? "rediss" : "redis"
  redis_user    = "crawler"
  stream_copies = min(3, min([for r in values(var.fleet.regions) : r.nats]...))

  # What every role must agree on (docs/configuration.md: "must equal the coordinator's").
  shared_env = merge(
    {
      CRAWL_DEFAULT_REGION = var.fleet.default_region
      CRAWL_PARTITIONS     = tostring(var.fleet.partitions)
    },
    local.region_rules == "" ? {} : { CRAWL_REGION_RULES = local.region_rules },
    # Every role applies the address policy (the coordinator to seeds, frontier nodes at admission, fetch
    # nodes before each request), so the switch goes to all of them.
    var.fleet.allow_private_addresses ? { CRAWL_ALLOW_PRIVATE_ADDRESSES = "true" } : {},
  )

  # Settings the fleet needs that the processes do not read yet (issue 11: WARC upload with an instance
  # role's credentials). They are rendered so that the fleet is complete and switch off with
  # fleet.warc_upload; the output `pending_process_settings` lists the ones a given fleet renders, so a
  # test that boots the rendered fleet can insist on none. (The TLS and NATS user settings of issue 10 are
  # read by every role: kit/tls; so is CRAWL_NATS_REPLICAS: adapters/nats.)
  settings_not_yet_read_by_processes = {
    CRAWL_WARC_UPLOAD = "s3://bucket/prefix the fetch nodes upload finished WARC files to (fleet.warc_upload): without secrets.warc_access_key_id / warc_secret_access_key they have no credentials (an instance role's are not read yet) and do not start"
  }

  # The fetch nodes' upload of WARC files: the target, the store's endpoint and signing region (per region:
  # {region} stands for its name), and the credentials, which are secrets.
  warc_upload_on  = var.fleet.warc_upload != null
  warc_keys_given = var.secrets.warc_access_key_id != null
  warc_upload_env = { for r in local.region_names : r => local.warc_upload_on ? merge(
    # Each region's files go under <region>/ (per-region buckets: "s3://crawl-warc-{region}").
    { CRAWL_WARC_UPLOAD = "${trimsuffix(replace(var.fleet.warc_upload, "{region}", r), "/")}/${r}" },
    var.fleet.warc_upload_endpoint == null ? {} : { AWS_ENDPOINT_URL_S3 = var.fleet.warc_upload_endpoint },
    var.fleet.warc_upload_region == null ? {} : { AWS_REGION = replace(var.fleet.warc_upload_region, "{region}", r) },
  ) : {} }
  warc_secret_env = local.warc_upload_on && local.warc_keys_given ? {
    AWS_ACCESS_KEY_ID     = "{{warc_access_key_id}}"
    AWS_SECRET_ACCESS_KEY = "{{warc_secret_access_key}}"
  } : {}

  # By boot target (machine, or a region's fetch group).
  nats_client_env = { for id, f in local.tls_files : id => merge(
    local.nats_auth ? { CRAWL_NATS_USER = try(local.machines[id].role, "fetch") } : {},
    local.tls_on ? { CRAWL_NATS_TLS_CA_FILE = f.ca_file } : {},
    # Copies of every stream, of the cluster-state bucket and of the replicated partition state (each
    # role creates them: adapters/nats); 3 on a region's 3-server cluster, where losing one server loses
    # nothing.
    local.stream_copies > 1 ? { CRAWL_NATS_REPLICAS = tostring(local.stream_copies) } : {},
  ) }
  # gRPC (coordinator, frontier nodes): the machine's certificate names its role and node id
  # (crawler://<role>/<id>, crawlctl certs node); frontier nodes answer only coordinator and frontier ones.
  grpc_tls_env = { for id, f in local.tls_files : id => local.tls_on ? {
    CRAWL_GRPC_TLS_CA_FILE   = f.ca_file
    CRAWL_GRPC_TLS_CERT_FILE = f.cert_file
    CRAWL_GRPC_TLS_KEY_FILE  = f.key_file
  } : {} }
  # Every role's HTTP listener (the coordinator's admin API, every node's /healthz, /readyz, /metrics),
  # and the Redis CA of frontier and fetch nodes.
  http_tls_env = { for id, f in local.tls_files : id => local.tls_on ? {
    CRAWL_HTTP_TLS_CERT_FILE = f.cert_file
    CRAWL_HTTP_TLS_KEY_FILE  = f.key_file
  } : {} }
  redis_tls_env = { for id, f in local.tls_files : id => local.tls_on ? { CRAWL_REDIS_TLS_CA_FILE = f.ca_file } : {} }
  nats_secret_env = { for role in ["coordinator", "frontier", "fetch"] : role =>
    local.nats_auth ? { CRAWL_NATS_PASSWORD = "{{nats_${role}_password}}" } : {}
  }

  # By boot target: a fetch machine, or a region's fetch group.
  fetch_targets = merge(
    { for id, m in local.machines : id => m.region if m.role == "fetch" },
    { for r in local.region_names : "${r}-fetch" => r },
  )
  fetch_argv = { for id, r in local.fetch_targets : id => var.fleet.regions[r].fetch_runtime == "deno" ? [
    var.paths.deno, "run", "--node-modules-dir=manual", "--no-lock", "--allow-net", "--allow-env",
    # Deno reads only what it is allowed to: the WARC directory, and the TLS files when TLS is on.
    "--allow-read=${join(",", concat(["${local.dirs[id].state}/warc"], local.tls_on ? [local.tls_files[id].ca_file, local.tls_files[id].cert_file, local.tls_files[id].key_file] : []))}",
    "--allow-write=${local.dirs[id].state}/warc",
    "${var.paths.install_dir}/fetch-node/main.ts",
  ] : [var.paths.bun, "${var.paths.install_dir}/fetch-node/main.ts"] }

  redis_url_template = { for r in local.region_names : r =>
    "${local.redis_scheme}://${local.redis_user}:{{redis_password}}@${local.redis_of[r][0].host}:${local.redis_of[r][0].ports.redis}"
  }

  process = { for id, m in local.machines : id => (
    m.role == "coordinator" ? {
      argv = [var.paths.bun, "${var.paths.install_dir}/coordinator/main.ts"]
      env = merge(local.shared_env, var.fleet.policy, local.nats_client_env[id], local.grpc_tls_env[id], local.http_tls_env[id],
        {
          CRAWL_NODE_ID     = id
          CRAWL_NATS_URL    = local.nats_urls[m.region]
          CRAWL_GRPC_LISTEN = "${var.listen_host}:${m.ports.grpc}"
          CRAWL_HTTP_LISTEN = "${var.listen_host}:${m.ports.http}"
          # The fleet's frontier nodes boot together: the first ring gives each its share, no handoffs.
          CRAWL_EXPECT_FRONTIERS = tostring(sum([for r in values(var.fleet.regions) : r.frontier]))
      })
      secret_env = merge(local.nats_secret_env.coordinator, { CRAWL_ADMIN_TOKEN = "{{admin_token}}" })
    } :
    m.role == "frontier" ? {
      argv = [var.paths.bun, "${var.paths.install_dir}/frontier-node/main.ts"]
      env = merge(local.shared_env, var.fleet.policy, local.nats_client_env[id], local.grpc_tls_env[id], local.http_tls_env[id], local.redis_tls_env[id],
        {
          CRAWL_NODE_ID                 = id
          CRAWL_REGION                  = m.region
          CRAWL_NATS_URL                = local.nats_urls[m.region]
          CRAWL_DATA_DIR                = "${local.dirs[id].state}/frontier"
          CRAWL_FRONTIER_GRPC_LISTEN    = "${var.listen_host}:${m.ports.grpc}"
          CRAWL_FRONTIER_GRPC_ADVERTISE = "${m.host}:${m.ports.grpc}"
          CRAWL_FRONTIER_HTTP_LISTEN    = "${var.listen_host}:${m.ports.http}"
          CRAWL_CREDIT                  = tostring(var.fleet.regions[m.region].frontier_credit)
          CRAWL_STOP_GRACE              = "${var.fleet.frontier_stop_grace_seconds}s"
      })
      secret_env = merge(local.nats_secret_env.frontier, { CRAWL_REDIS_URL = local.redis_url_template[m.region] })
    } :
    m.role == "fetch" ? {
      argv = local.fetch_argv[id]
      env = merge(local.fetch_env[m.region], local.nats_client_env[id], local.http_tls_env[id], local.redis_tls_env[id], {
        CRAWL_NODE_ID           = id
        CRAWL_WARC_DIR          = "${local.dirs[id].state}/warc"
        CRAWL_FETCH_HTTP_LISTEN = "${var.listen_host}:${m.ports.http}"
      })
      secret_env = merge(local.nats_secret_env.fetch, local.warc_secret_env, { CRAWL_REDIS_URL = local.redis_url_template[m.region] })
    } :
    m.role == "nats" ? {
      argv = [var.paths.nats_server, "-c", "${local.dirs[id].config}/nats-server.conf"]
      env  = {}
      # nats-server reads $NATS_PASSWORD_<ROLE> from its environment (nats.tf).
      secret_env = local.nats_auth ? {
        NATS_PASSWORD_COORDINATOR = "{{nats_coordinator_password}}"
        NATS_PASSWORD_FRONTIER    = "{{nats_frontier_password}}"
        NATS_PASSWORD_FETCH       = "{{nats_fetch_password}}"
        NATS_PASSWORD_SYSTEM      = "{{nats_system_password}}"
      } : {}
    } :
    {
      argv       = [var.paths.redis, "${local.dirs[id].config}/redis.conf"]
      env        = {}
      secret_env = {}
    }
  ) }

  # A region's fetch nodes without a node id: the fixed fetch machines add theirs, and the machines of an
  # auto-scaling group derive one at boot (cloud_init.tf) into node-id.env.
  fetch_env = { for r in local.region_names : r => merge(local.shared_env, var.fleet.policy,
    local.nats_client_env["${r}-fetch"], local.http_tls_env["${r}-fetch"], local.redis_tls_env["${r}-fetch"],
    var.fleet.proxy == null ? {} : { CRAWL_PROXY = var.fleet.proxy },
    local.warc_upload_env[r],
    {
      CRAWL_REGION            = r
      CRAWL_NATS_URL          = local.nats_urls[r]
      CRAWL_WARC_DIR          = "${var.paths.state_dir}/warc"
      CRAWL_FETCH_CONCURRENCY = tostring(var.fleet.regions[r].fetch_concurrency)
      CRAWL_STOP_GRACE        = "${var.fleet.fetch_stop_grace_seconds}s"
      CRAWL_FETCH_HTTP_LISTEN = "${var.listen_host}:${local.p.fetch_http}"
  }) }

  # The fetch nodes of a region's auto-scaling group: one configuration for all of them, the node id
  # derived at boot (cloud_init.tf), the fleet's default ports.
  group_process = { for r in local.region_names : "${r}-fetch" => {
    argv       = local.fetch_argv["${r}-fetch"]
    env        = local.fetch_env[r]
    secret_env = merge(local.nats_secret_env.fetch, local.warc_secret_env, { CRAWL_REDIS_URL = local.redis_url_template[r] })
  } }

  # CRAWL_WARC_UPLOAD is read; it is pending only while the fetch nodes have no credentials for it.
  pending_process_settings = sort(distinct(flatten([for id, p in local.process : [
    for k in concat(keys(p.env), keys(p.secret_env)) : k if contains(keys(local.settings_not_yet_read_by_processes), k) && (k != "CRAWL_WARC_UPLOAD" || !local.warc_keys_given)
  ]])))
}
