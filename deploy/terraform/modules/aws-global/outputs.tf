output "dns_zone_id" {
  description = "Private hosted zone of the fleet's internal_domain; pass it to every aws-region module."
  value       = aws_route53_zone.internal.zone_id
}

output "coordinator_private_ips" {
  description = "Private IPv4 address of every coordinator, by node id."
  value       = { for id, i in aws_instance.coordinator : id => i.private_ip }
}

output "coordinator_security_group_id" {
  description = "Security group of the coordinators."
  value       = aws_security_group.coordinator.id
}

output "coordinator_role_arn" {
  description = "IAM role of the coordinators."
  value       = aws_iam_role.coordinator.arn
}
