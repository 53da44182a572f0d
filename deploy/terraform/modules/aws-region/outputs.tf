output "private_ips" {
  description = "Private IPv4 address of every NATS, Redis and frontier machine of the region, by node id."
  value = merge(
    { for id, i in aws_instance.server : id => i.private_ip },
    { for id, i in aws_instance.frontier : id => i.private_ip },
  )
}

output "frontier_data_volume_ids" {
  description = "The EBS data volume of every frontier node, by node id. These outlive instances; back them up or snapshot them before deleting a node for good."
  value       = { for id, v in aws_ebs_volume.frontier_data : id => v.id }
}

output "fetch_autoscaling_group" {
  description = "Name of the region's fetch-node auto-scaling group (change its desired capacity, or fetch_scaling, to resize)."
  value       = aws_autoscaling_group.fetch.name
}

output "warc_bucket" {
  description = "Name and ARN of the region's WARC bucket, and the prefix the fetch nodes write under."
  value = {
    name   = aws_s3_bucket.warc.id
    arn    = aws_s3_bucket.warc.arn
    prefix = "${var.region}/"
  }
}

output "security_group_ids" {
  description = "Security group of each role in the region (nats, redis, frontier, fetch)."
  value = {
    nats     = aws_security_group.nats.id
    redis    = aws_security_group.redis.id
    frontier = aws_security_group.frontier.id
    fetch    = aws_security_group.fetch.id
  }
}

output "iam_role_arns" {
  description = "IAM role of each role's machines, by role."
  value       = { for role, r in aws_iam_role.role : role => r.arn }
}
