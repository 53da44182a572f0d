# One region of the fleet on AWS: the NATS cluster, the Redis servers and the frontier nodes as
# instances (each frontier node with its own EBS data volume, see frontier.tf), the fetch nodes as an
# auto-scaling group (fetch.tf), the WARC bucket (bucket.tf), least-privilege roles (iam.tf) and security
# groups (network.tf). Every machine boots with the user data the fleet module rendered for it; nothing
# here decides what runs on a machine.

locals {
  name = "${var.fleet_name}-${var.region}"
  mine = { for id, m in var.machines : id => m if m.region == var.region }

  placed = { for id, m in local.mine : id => m if contains(["nats", "redis"], m.role) }
  fronts = { for id, m in local.mine : id => m if m.role == "frontier" }

  fetch_count = length([for m in values(local.mine) : m if m.role == "fetch"])

  subnet_of = { for id, m in local.mine : id => var.private_subnet_ids[(m.index - 1) % length(var.private_subnet_ids)] }

  sg_of = {
    nats     = aws_security_group.nats.id
    redis    = aws_security_group.redis.id
    frontier = aws_security_group.frontier.id
  }

  tags = merge(var.tags, { Fleet = var.fleet_name, FleetRegion = var.region })
}

# NATS and Redis servers: replaced in place when their user data changes (a NATS server catches up from
# its peers; a Redis replica resyncs, a primary reloads its AOF only if the root volume survives, so
# plan Redis replacements with issue 9's seen-set rebuild in mind).
resource "aws_instance" "server" {
  for_each = local.placed

  ami                    = var.ami_id
  instance_type          = var.instance_types[each.value.role]
  subnet_id              = local.subnet_of[each.key]
  vpc_security_group_ids = [local.sg_of[each.value.role]]
  iam_instance_profile   = aws_iam_instance_profile.role[each.value.role].name
  user_data_base64       = base64gzip(each.value.user_data)

  user_data_replace_on_change = true

  metadata_options {
    http_tokens   = "required"
    http_endpoint = "enabled"
  }

  root_block_device {
    volume_type = "gp3"
    volume_size = var.root_volume_gb[each.value.role]
    encrypted   = true
  }

  tags        = merge(local.tags, { Name = each.key, Role = each.value.role })
  volume_tags = merge(local.tags, { Name = each.key, Role = each.value.role })
}
