# The coordinators of the fleet (the active one and its standbys: the same configuration, each with its
# own node id; the lease in the cluster-state bucket decides who leads) and the fleet's private DNS zone.
# They run in the control region; the regions' VPCs must be connected (peering or a transit gateway) so
# that coordinators reach every region's NATS and frontier nodes.

locals {
  name         = "${var.fleet_name}-control"
  coordinators = { for id, m in var.machines : id => m if m.role == "coordinator" }
  tags         = merge(var.tags, { Fleet = var.fleet_name })
}

resource "aws_route53_zone" "internal" {
  name    = var.internal_domain
  comment = "Machine names of crawl fleet ${var.fleet_name}"

  vpc {
    vpc_id = var.vpc_id
  }

  dynamic "vpc" {
    for_each = var.other_vpcs
    content {
      vpc_id     = vpc.value
      vpc_region = vpc.key
    }
  }

  tags = merge(local.tags, { Name = var.internal_domain })
}

resource "aws_security_group" "coordinator" {
  name_prefix = "${local.name}-coordinator-"
  description = "Coordinators of ${var.fleet_name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${local.name}-coordinator", Role = "coordinator" })
  lifecycle {
    create_before_destroy = true
  }
}

locals {
  # [port, cidrs, description]; the admin API and gRPC are never open to the world (variables' validation).
  coordinator_rules = merge(
    { for c in var.operator_cidrs : "grpc-operators:${c}" => [var.ports.coordinator_grpc, c, "Coordinator gRPC: crawlctl"] },
    { for c in var.operator_cidrs : "http-operators:${c}" => [var.ports.coordinator_http, c, "Coordinator admin API"] },
    { for c in var.frontier_cidrs : "grpc-frontier:${c}" => [var.ports.coordinator_grpc, c, "Coordinator gRPC: frontier nodes draining on stop"] },
  )
}

resource "aws_vpc_security_group_ingress_rule" "coordinator" {
  for_each = local.coordinator_rules

  security_group_id = aws_security_group.coordinator.id
  ip_protocol       = "tcp"
  from_port         = each.value[0]
  to_port           = each.value[0]
  cidr_ipv4         = each.value[1]
  description       = each.value[2]
  tags              = merge(local.tags, { Name = "${local.name}-${split(":", each.key)[0]}" })
}

resource "aws_vpc_security_group_egress_rule" "coordinator" {
  security_group_id = aws_security_group.coordinator.id
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
  description       = "Outbound: NATS, frontier nodes, packages, the secret store"
  tags              = merge(local.tags, { Name = "${local.name}-coordinator-egress" })
}

resource "aws_instance" "coordinator" {
  for_each = local.coordinators

  ami                    = var.ami_id
  instance_type          = var.instance_type
  subnet_id              = var.subnet_ids[(each.value.index - 1) % length(var.subnet_ids)]
  vpc_security_group_ids = [aws_security_group.coordinator.id]
  iam_instance_profile   = aws_iam_instance_profile.coordinator.name
  user_data_base64       = base64gzip(each.value.user_data)

  user_data_replace_on_change = true

  metadata_options {
    http_tokens   = "required"
    http_endpoint = "enabled"
  }

  root_block_device {
    volume_type = "gp3"
    volume_size = 20
    encrypted   = true
  }

  tags        = merge(local.tags, { Name = each.key, Role = "coordinator", NodeId = each.key })
  volume_tags = merge(local.tags, { Name = each.key, Role = "coordinator" })
}

resource "aws_route53_record" "coordinator" {
  for_each = aws_instance.coordinator

  zone_id = aws_route53_zone.internal.zone_id
  name    = "${each.key}.${var.internal_domain}"
  type    = "A"
  ttl     = 30
  records = [each.value.private_ip]
}
