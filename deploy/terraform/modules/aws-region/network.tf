# Security groups: each port open only to the roles that use it. Nothing accepts traffic from the
# internet; the coordinators (another region, possibly) are named by CIDR, operators by operator_cidrs,
# the other regions' NATS servers by peer_nats_cidrs. Egress stays open: fetch nodes crawl the web, and
# every machine installs its packages.

resource "aws_security_group" "nats" {
  name_prefix = "${local.name}-nats-"
  description = "NATS servers of ${local.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${local.name}-nats", Role = "nats" })
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "redis" {
  name_prefix = "${local.name}-redis-"
  description = "Redis servers of ${local.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${local.name}-redis", Role = "redis" })
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "frontier" {
  name_prefix = "${local.name}-frontier-"
  description = "Frontier nodes of ${local.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${local.name}-frontier", Role = "frontier" })
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "fetch" {
  name_prefix = "${local.name}-fetch-"
  description = "Fetch nodes of ${local.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${local.name}-fetch", Role = "fetch" })
  lifecycle {
    create_before_destroy = true
  }
}

locals {
  # Rules from security groups of this region: [group, port, source group, description].
  sg_rules = {
    nats_client_frontier = [aws_security_group.nats.id, var.ports.nats_client, aws_security_group.frontier.id, "NATS clients: frontier nodes"]
    nats_client_fetch    = [aws_security_group.nats.id, var.ports.nats_client, aws_security_group.fetch.id, "NATS clients: fetch nodes"]
    nats_cluster         = [aws_security_group.nats.id, var.ports.nats_cluster, aws_security_group.nats.id, "NATS routes within the region"]
    nats_gateway_self    = [aws_security_group.nats.id, var.ports.nats_gateway, aws_security_group.nats.id, "NATS gateway gossip within the region"]
    redis_frontier       = [aws_security_group.redis.id, var.ports.redis, aws_security_group.frontier.id, "Redis: frontier nodes (seen-sets)"]
    redis_fetch          = [aws_security_group.redis.id, var.ports.redis, aws_security_group.fetch.id, "Redis: fetch nodes (content index)"]
    redis_replication    = [aws_security_group.redis.id, var.ports.redis, aws_security_group.redis.id, "Redis replication"]
    frontier_grpc_peers  = [aws_security_group.frontier.id, var.ports.frontier_grpc, aws_security_group.frontier.id, "Frontier gRPC: partition handoff between frontier nodes"]
  }

  # Rules from CIDR blocks: [group, port, cidrs, description]. None of these lists may hold 0.0.0.0/0
  # (checked by the variables' validation and by tests/deploy).
  cidr_rules = {
    nats_client_coordinators = [aws_security_group.nats.id, var.ports.nats_client, var.coordinator_cidrs, "NATS clients: coordinators"]
    nats_gateway_peers       = [aws_security_group.nats.id, var.ports.nats_gateway, var.peer_nats_cidrs, "NATS gateways of the other regions"]
    nats_monitor_operators   = [aws_security_group.nats.id, var.ports.nats_monitor, var.operator_cidrs, "NATS monitoring: operators"]
    frontier_grpc_coord      = [aws_security_group.frontier.id, var.ports.frontier_grpc, var.coordinator_cidrs, "Frontier gRPC: coordinators"]
    frontier_http_operators  = [aws_security_group.frontier.id, var.ports.frontier_http, var.operator_cidrs, "Frontier metrics: operators"]
    fetch_http_operators     = [aws_security_group.fetch.id, var.ports.fetch_http, var.operator_cidrs, "Fetch node metrics: operators"]
  }
}

resource "aws_vpc_security_group_ingress_rule" "from_group" {
  for_each = local.sg_rules

  security_group_id            = each.value[0]
  ip_protocol                  = "tcp"
  from_port                    = each.value[1]
  to_port                      = each.value[1]
  referenced_security_group_id = each.value[2]
  description                  = each.value[3]
  tags                         = merge(local.tags, { Name = "${local.name}-${each.key}" })
}

resource "aws_vpc_security_group_ingress_rule" "from_cidr" {
  for_each = merge([for name, r in local.cidr_rules : { for cidr in r[2] : "${name}:${cidr}" => [r[0], r[1], cidr, r[3]] }]...)

  security_group_id = each.value[0]
  ip_protocol       = "tcp"
  from_port         = each.value[1]
  to_port           = each.value[1]
  cidr_ipv4         = each.value[2]
  description       = each.value[3]
  tags              = merge(local.tags, { Name = "${local.name}-${split(":", each.key)[0]}" })
}

resource "aws_vpc_security_group_egress_rule" "all" {
  for_each = {
    nats     = aws_security_group.nats.id
    redis    = aws_security_group.redis.id
    frontier = aws_security_group.frontier.id
    fetch    = aws_security_group.fetch.id
  }

  security_group_id = each.value
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
  description       = "Outbound: packages, the secret store, S3, and for fetch nodes the web"
  tags              = merge(local.tags, { Name = "${local.name}-${each.key}-egress" })
}
