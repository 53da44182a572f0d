# Two regions, one coordinator plus a standby: hosts under eu_host_suffixes are crawled from eu-west-1,
# all others from us-east-1. The fleet module renders every machine; aws-global and aws-region place
# them. Secrets are created here without values: set them once (README.md) before the machines boot.

locals {
  fleet_name = "crawl"
  secret     = "crawl/${local.fleet_name}"
  secret_names = {
    admin_token               = "${local.secret}/admin-token"
    redis_password            = "${local.secret}/redis-password"
    nats_coordinator_password = "${local.secret}/nats-coordinator"
    nats_frontier_password    = "${local.secret}/nats-frontier"
    nats_fetch_password       = "${local.secret}/nats-fetch"
    nats_system_password      = "${local.secret}/nats-system"
  }
  regions = {
    us-east-1 = merge(var.node_counts["us-east-1"], { host_suffixes = [] })
    eu-west-1 = merge(var.node_counts["eu-west-1"], { host_suffixes = var.eu_host_suffixes })
  }
}

module "fleet" {
  source = "../../modules/fleet"

  fleet = {
    name            = local.fleet_name
    crawler_version = var.crawler_version
    artifact_url    = var.artifact_url
    artifact_sha256 = var.artifact_sha256
    default_region  = "us-east-1"
    control_region  = "us-east-1"
    coordinators    = 2
    partitions      = 256 # docs/sizing.md: at 1 B pages a day 64 partitions leave the busiest frontier node at 1.5x the mean, 256 at 1.3x
    regions         = local.regions
    warc_upload     = "s3://${var.warc_bucket_prefix}-{region}"
  }
  secrets = local.secret_names
  security = {
    tls = { enabled = var.tls, secret_prefix = "${local.secret}/tls" }
  }
  extra_packages = ["awscli"]
  # Each machine reads secrets from Secrets Manager in its own region (the secrets are replicated).
  secret_reader = <<-EOT
    token=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H 'X-aws-ec2-metadata-token-ttl-seconds: 60')
    region=$(curl -sf -H "X-aws-ec2-metadata-token: $token" http://169.254.169.254/latest/meta-data/placement/region)
    exec aws secretsmanager get-secret-value --region "$region" --secret-id "$1" --query SecretString --output text
  EOT
}

# The secrets, replicated to eu-west-1; their values are set out of band (README.md).
resource "aws_secretsmanager_secret" "fleet" {
  provider = aws.us_east_1
  for_each = local.secret_names

  name        = each.value
  description = "crawl fleet ${local.fleet_name}: ${each.key}"
  replica {
    region = "eu-west-1"
  }
}

module "control" {
  source    = "../../modules/aws-global"
  providers = { aws = aws.us_east_1 }

  fleet_name      = local.fleet_name
  machines        = module.fleet.machines
  ports           = module.fleet.ports
  internal_domain = "crawl.internal"
  vpc_id          = var.networks["us-east-1"].vpc_id
  other_vpcs      = { "eu-west-1" = var.networks["eu-west-1"].vpc_id }
  subnet_ids      = var.networks["us-east-1"].private_subnet_ids
  operator_cidrs  = var.operator_cidrs
  frontier_cidrs  = [for n in values(var.networks) : n.vpc_cidr]
  ami_id          = var.ami_ids["us-east-1"]
  artifact_s3_arn = var.artifact_s3_arn
  secret_names = {
    names             = values(module.fleet.machines["coordinator-1"].secret_names)
    tls_secret_prefix = var.tls ? "${local.secret}/tls" : null
  }
  tags = var.tags
}

module "us_east_1" {
  source    = "../../modules/aws-region"
  providers = { aws = aws.us_east_1 }

  region             = "us-east-1"
  fleet_name         = local.fleet_name
  machines           = module.fleet.machines
  fetch_group        = module.fleet.fetch_groups["us-east-1"]
  ports              = module.fleet.ports
  vpc_id             = var.networks["us-east-1"].vpc_id
  private_subnet_ids = var.networks["us-east-1"].private_subnet_ids
  fetch_subnet_ids   = var.networks["us-east-1"].public_subnet_ids
  operator_cidrs     = var.operator_cidrs
  coordinator_cidrs  = [var.networks["us-east-1"].vpc_cidr]
  peer_nats_cidrs    = [var.networks["eu-west-1"].vpc_cidr]
  ami_id             = var.ami_ids["us-east-1"]
  dns_zone_id        = module.control.dns_zone_id
  internal_domain    = "crawl.internal"
  warc_bucket_name   = "${var.warc_bucket_prefix}-us-east-1"
  artifact_s3_arn    = var.artifact_s3_arn
  secret_names       = local.role_secrets
  tags               = var.tags
}

module "eu_west_1" {
  source    = "../../modules/aws-region"
  providers = { aws = aws.eu_west_1 }

  region             = "eu-west-1"
  fleet_name         = local.fleet_name
  machines           = module.fleet.machines
  fetch_group        = module.fleet.fetch_groups["eu-west-1"]
  ports              = module.fleet.ports
  vpc_id             = var.networks["eu-west-1"].vpc_id
  private_subnet_ids = var.networks["eu-west-1"].private_subnet_ids
  fetch_subnet_ids   = var.networks["eu-west-1"].public_subnet_ids
  operator_cidrs     = var.operator_cidrs
  coordinator_cidrs  = [var.networks["us-east-1"].vpc_cidr]
  peer_nats_cidrs    = [var.networks["us-east-1"].vpc_cidr]
  ami_id             = var.ami_ids["eu-west-1"]
  dns_zone_id        = module.control.dns_zone_id
  internal_domain    = "crawl.internal"
  warc_bucket_name   = "${var.warc_bucket_prefix}-eu-west-1"
  artifact_s3_arn    = var.artifact_s3_arn
  secret_names       = local.role_secrets
  tags               = var.tags
}

locals {
  # What each role's machines read, as the fleet rendered it (the same in every region).
  role_secrets = {
    by_role = { for role in ["nats", "redis", "frontier", "fetch"] : role => distinct(flatten([
      for m in values(module.fleet.machines) : values(m.secret_names) if m.role == role
    ])) }
    tls_secret_prefix = var.tls ? "${local.secret}/tls" : null
  }
}
