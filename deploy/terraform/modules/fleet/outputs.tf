# What the fleet module hands to cloud modules and to tests. Nothing here holds a secret value: secrets
# appear only as names (secret_names) and as {{key}} placeholders (secret_env), filled in on the machine.

output "machines" {
  description = <<-EOT
    Every machine by node id: role (coordinator, nats, redis, frontier, fetch), region, host (the name
    others dial), ports, and what runs on it: argv (the command line, as a list), env (its non-secret
    environment), secret_env (settings carrying a secret, with {{key}} for var.secrets[key]), secret_names
    (key -> name of each secret it reads), working_dir, unit (systemd unit name), files (absolute path ->
    { mode, content }) and user_data (cloud-init, plain text).
  EOT
  value = { for id, m in local.machines : id => {
    role         = m.role
    region       = m.region
    index        = m.index
    host         = m.host
    ports        = m.ports
    argv         = local.process[id].argv
    env          = local.process[id].env
    secret_env   = local.process[id].secret_env
    secret_names = { for k in local.secret_keys[id] : k => var.secrets[k] }
    working_dir  = contains(["nats", "redis"], m.role) ? local.dirs[id].state : var.paths.install_dir
    unit         = "${local.unit_name[m.role]}.service"
    dirs         = local.dirs[id]
    files        = local.files[id]
    user_data    = local.user_data[id]
  } }
}

output "fetch_groups" {
  description = "Per region, the one configuration of the fetch nodes of an auto-scaling group (node id derived at boot from the machine id): argv, env, secret_env, secret_names, files and user_data, as in machines."
  value = { for r in local.region_names : r => {
    argv         = local.group_process["${r}-fetch"].argv
    env          = local.group_process["${r}-fetch"].env
    secret_env   = local.group_process["${r}-fetch"].secret_env
    secret_names = { for k in local.secret_keys["${r}-fetch"] : k => var.secrets[k] }
    files        = local.files["${r}-fetch"]
    user_data    = local.user_data["${r}-fetch"]
  } }
}

output "regions" {
  description = "Per region: the node ids of each role (in order), its NATS client URLs, the Redis primary's host:port, the other regions its gateway joins, and the JetStream stream names."
  value = { for r in local.region_names : r => {
    nats          = [for s in local.nats_of[r] : s.id]
    redis         = [for s in local.redis_of[r] : s.id]
    frontier      = [for m in local.machine_list : m.id if m.role == "frontier" && m.region == r]
    fetch         = [for m in local.machine_list : m.id if m.role == "fetch" && m.region == r]
    coordinators  = [for c in local.coordinators : c.id if c.region == r]
    nats_urls     = local.nats_urls[r]
    redis_primary = "${local.redis_of[r][0].host}:${local.redis_of[r][0].ports.redis}"
    gateways      = [for rr in local.region_names : rr if rr != r]
    streams       = local.streams_of[r]
    fetch_runtime = var.fleet.regions[r].fetch_runtime
  } }
}

output "nats_configs" {
  description = "The nats-server configuration file of every NATS server, by node id (also in machines[id].files)."
  value       = local.nats_conf
}

output "redis_configs" {
  description = "The redis.conf of every Redis server, by node id (also in machines[id].files)."
  value       = local.redis_conf
}

output "region_rules" {
  description = "The region rules every process is given (CRAWL_REGION_RULES), e.g. \"eu-west-1=.de,.fr\"."
  value       = local.region_rules
}

output "coordinator_grpc_addresses" {
  description = "host:port of every coordinator's gRPC API, active one and standbys (for crawlctl --coordinator)."
  value       = local.coordinator_grpc_addresses
}

output "coordinator_admin_urls" {
  description = "Base URL of every coordinator's admin HTTP API."
  value       = [for c in local.coordinators : "${local.tls_on ? "https" : "http"}://${c.host}:${c.ports.http}"]
}

output "ports" {
  description = "The fleet's ports by service (fleet.ports with defaults applied), for security groups."
  value       = var.fleet.ports
}

output "pending_process_settings" {
  description = "Env vars this fleet renders that the crawler processes do not read yet (stream replicas, WARC upload without keys), with what each is for. Empty when the rendered fleet runs on today's processes as is."
  value       = { for k in local.pending_process_settings : k => local.settings_not_yet_read_by_processes[k] }
}
