# The coordinators' role: read their own secrets (admin token, NATS password) and the crawler release.

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  secret_arn = "arn:${data.aws_partition.current.partition}:secretsmanager:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:secret"
  secret_arns = concat(
    [for n in var.secret_names.names : "${local.secret_arn}:${n}-??????"],
    var.secret_names.tls_secret_prefix == null ? [] : ["${local.secret_arn}:${var.secret_names.tls_secret_prefix}/*"],
  )
}

data "aws_iam_policy_document" "assume_ec2" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

data "aws_iam_policy_document" "coordinator" {
  statement {
    sid       = "ReadOwnSecrets"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = local.secret_arns
  }

  dynamic "statement" {
    for_each = var.artifact_s3_arn == null ? [] : [1]
    content {
      sid       = "ReadCrawlerRelease"
      actions   = ["s3:GetObject"]
      resources = [var.artifact_s3_arn]
    }
  }
}

resource "aws_iam_role" "coordinator" {
  name_prefix        = substr("${local.name}-coordinator-", 0, 38)
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
  tags               = merge(local.tags, { Role = "coordinator" })
}

resource "aws_iam_instance_profile" "coordinator" {
  name_prefix = substr("${local.name}-coordinator-", 0, 38)
  role        = aws_iam_role.coordinator.name
  tags        = merge(local.tags, { Role = "coordinator" })
}

resource "aws_iam_role_policy" "coordinator" {
  name   = "${local.name}-coordinator"
  role   = aws_iam_role.coordinator.id
  policy = data.aws_iam_policy_document.coordinator.json
}

resource "aws_iam_role_policy_attachment" "ssm" {
  count = var.enable_ssm ? 1 : 0

  role       = aws_iam_role.coordinator.name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
}
