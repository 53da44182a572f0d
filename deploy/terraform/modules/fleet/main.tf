# The fleet module: one description of the fleet in, every machine's configuration out.
#
# This file lists the machines: their node ids (unique across regions: <region>-<role>-<n>, and
# coordinator-<n> for the coordinators of the control region), the address others dial them at
# (<node id>.<internal_domain>, or a test's override), and their ports. env.tf turns each machine into a
# command line and CRAWL_* environment, nats.tf and redis.tf render the servers' configuration, scripts.tf
# and systemd.tf the helpers and units, cloud_init.tf the user data that writes all of it.

locals {
  region_names = sort(keys(var.fleet.regions))
  node_roles   = ["nats", "redis", "frontier", "fetch"]

  # In a stable order (coordinators, then per region nats, redis, frontier, fetch by index), so that
  # lists derived from it (NATS routes, URLs) keep their order across plans.
  machine_list = concat(
    [for i in range(var.fleet.coordinators) : {
      id     = "coordinator-${i + 1}"
      role   = "coordinator"
      region = var.fleet.control_region
      index  = i + 1
    }],
    flatten([for r in local.region_names : [for role in local.node_roles : [
      for i in range(lookup(var.fleet.regions[r], role)) : {
        id     = "${r}-${role}-${i + 1}"
        role   = role
        region = r
        index  = i + 1
      }
    ]]]),
  )

  p = var.fleet.ports
  role_ports = {
    coordinator = { grpc = local.p.coordinator_grpc, http = local.p.coordinator_http }
    nats        = { client = local.p.nats_client, cluster = local.p.nats_cluster, gateway = local.p.nats_gateway, monitor = local.p.nats_monitor }
    redis       = { redis = local.p.redis }
    frontier    = { grpc = local.p.frontier_grpc, http = local.p.frontier_http }
    fetch       = { http = local.p.fetch_http }
  }

  machines = { for m in local.machine_list : m.id => merge(m, {
    host  = try(coalesce(var.machine_overrides[m.id].host), "${m.id}.${var.fleet.internal_domain}")
    ports = merge(local.role_ports[m.role], try(var.machine_overrides[m.id].ports, {}))
  }) }

  # Where each boot target (machine, or a region's fetch group) keeps its configuration, state and helper
  # scripts: the fleet's paths, or the machine's own (a test running every machine on one host).
  dirs = merge(
    { for m in local.machine_list : m.id => {
      config = try(coalesce(var.machine_overrides[m.id].config_dir), var.paths.config_dir)
      state  = try(coalesce(var.machine_overrides[m.id].state_dir), var.paths.state_dir)
      bin    = try(coalesce(var.machine_overrides[m.id].bin_dir), var.paths.bin_dir)
    } },
    { for r in local.region_names : "${r}-fetch" => { config = var.paths.config_dir, state = var.paths.state_dir, bin = var.paths.bin_dir } },
  )

  # The TLS files of each boot target: the fleet's paths, or the machine's own tls_dir (a test running every
  # machine, each with its own identity, on one host).
  tls_files = merge(
    { for m in local.machine_list : m.id => try(var.machine_overrides[m.id].tls_dir, null) == null ? {
      ca_file   = var.security.tls.ca_file
      cert_file = var.security.tls.cert_file
      key_file  = var.security.tls.key_file
      } : {
      ca_file   = "${var.machine_overrides[m.id].tls_dir}/ca.pem"
      cert_file = "${var.machine_overrides[m.id].tls_dir}/node.pem"
      key_file  = "${var.machine_overrides[m.id].tls_dir}/node.key"
    } },
    { for r in local.region_names : "${r}-fetch" => {
      ca_file   = var.security.tls.ca_file
      cert_file = var.security.tls.cert_file
      key_file  = var.security.tls.key_file
    } },
  )

  # Per region: its servers in order, and the URLs clients use.
  nats_of  = { for r in local.region_names : r => [for m in local.machine_list : local.machines[m.id] if m.role == "nats" && m.region == r] }
  redis_of = { for r in local.region_names : r => [for m in local.machine_list : local.machines[m.id] if m.role == "redis" && m.region == r] }
  nats_urls = { for r in local.region_names : r => join(",", [
    for s in local.nats_of[r] : "nats://${s.host}:${s.ports.client}"
  ]) }
  coordinators = [for m in local.machine_list : local.machines[m.id] if m.role == "coordinator"]

  # "eu-west-1=.de,.fr;us-east-1=.com" as the processes parse it (core/cluster/regions.ts).
  region_rules = join(";", [
    for r in local.region_names : "${r}=${join(",", [for s in var.fleet.regions[r].host_suffixes : startswith(s, ".") ? s : ".${s}"])}"
    if length(var.fleet.regions[r].host_suffixes) > 0
  ])

  unknown_override_ids = setsubtract(keys(var.machine_overrides), keys(local.machines))
  misplaced_override_ports = flatten([for id, o in var.machine_overrides : [
    for k in keys(o.ports) : "${id}.${k}" if contains(keys(local.machines), id) && !contains(keys(try(local.role_ports[local.machines[id].role], {})), k)
  ]])

  # Two machines must never dial the same host:port (a test remapping onto 127.0.0.1 gets this wrong
  # easily; on a real fleet the hosts differ).
  endpoints = flatten([for m in values(local.machines) : [for k, port in m.ports : "${m.host}:${port}"]])
}

# Holds the rendered fleet's fingerprint, so that a plan shows when any machine's configuration changes,
# and checks what the variables' own validation cannot see (it cannot read the other variables' values).
resource "terraform_data" "fleet" {
  input = {
    name     = var.fleet.name
    version  = var.fleet.crawler_version
    machines = { for id, m in local.rendered : id => sha256(jsonencode(m)) }
  }

  lifecycle {
    precondition {
      condition     = length(local.unknown_override_ids) == 0
      error_message = "machine_overrides names machines that do not exist: ${join(", ", sort(local.unknown_override_ids))}."
    }
    precondition {
      condition     = length(local.misplaced_override_ports) == 0
      error_message = "machine_overrides gives ports a machine's role does not have: ${join(", ", local.misplaced_override_ports)}."
    }
    precondition {
      condition     = length(distinct(local.endpoints)) == length(local.endpoints)
      error_message = "Two services would listen on the same host:port; give each its own port in machine_overrides."
    }
    precondition {
      condition     = length(local.machine_list) == length(local.machines)
      error_message = "Node ids collide across regions."
    }
    precondition {
      condition     = alltrue([for id in keys(local.machines) : length(id) <= 63])
      error_message = "A node id is longer than 63 characters; use shorter region names."
    }
  }
}
