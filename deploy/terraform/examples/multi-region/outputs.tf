output "coordinator_grpc_addresses" {
  description = "crawlctl --coordinator targets (active and standby), reachable from operator_cidrs."
  value       = module.fleet.coordinator_grpc_addresses
}

output "coordinator_admin_urls" {
  description = "Admin API base URLs of the coordinators."
  value       = module.fleet.coordinator_admin_urls
}

output "region_rules" {
  description = "The region rules every process runs with."
  value       = module.fleet.region_rules
}

output "warc_buckets" {
  description = "WARC bucket of each region."
  value = {
    us-east-1 = module.us_east_1.warc_bucket
    eu-west-1 = module.eu_west_1.warc_bucket
  }
}

output "secrets_to_set" {
  description = "Secret names to give values (URL-safe: A-Z a-z 0-9 . _ ~ -) before the machines boot."
  value       = values(local.secret_names)
}

output "pending_process_settings" {
  description = "Settings this fleet renders that the crawler processes do not read yet."
  value       = module.fleet.pending_process_settings
}
