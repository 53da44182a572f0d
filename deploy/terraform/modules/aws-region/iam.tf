# One IAM role per role of machine, each allowed only what that role does: read its own secrets (by
# name, in this region's secret store), the crawler machines read the release artifact, and the fetch
# nodes write WARC files under <region>/ of this region's bucket (no delete, nothing elsewhere).

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  roles = ["nats", "redis", "frontier", "fetch"]

  secret_arn = "arn:${data.aws_partition.current.partition}:secretsmanager:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:secret"
  # Secrets Manager appends 6 random characters to a secret's name in its ARN.
  secret_arns = { for role in local.roles : role => concat(
    [for n in lookup(var.secret_names.by_role, role, []) : "${local.secret_arn}:${n}-??????"],
    var.secret_names.tls_secret_prefix == null ? [] : ["${local.secret_arn}:${var.secret_names.tls_secret_prefix}/*"],
  ) }
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

resource "aws_iam_role" "role" {
  for_each = toset(local.roles)

  name_prefix        = substr("${local.name}-${each.key}-", 0, 38)
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
  tags               = merge(local.tags, { Role = each.key })
}

resource "aws_iam_instance_profile" "role" {
  for_each = toset(local.roles)

  name_prefix = substr("${local.name}-${each.key}-", 0, 38)
  role        = aws_iam_role.role[each.key].name
  tags        = merge(local.tags, { Role = each.key })
}

data "aws_iam_policy_document" "role" {
  for_each = toset(local.roles)

  dynamic "statement" {
    for_each = length(local.secret_arns[each.key]) > 0 ? [1] : []
    content {
      sid       = "ReadOwnSecrets"
      actions   = ["secretsmanager:GetSecretValue"]
      resources = local.secret_arns[each.key]
    }
  }

  dynamic "statement" {
    for_each = var.artifact_s3_arn != null && contains(["frontier", "fetch"], each.key) ? [1] : []
    content {
      sid       = "ReadCrawlerRelease"
      actions   = ["s3:GetObject"]
      resources = [var.artifact_s3_arn]
    }
  }

  dynamic "statement" {
    for_each = each.key == "fetch" ? [1] : []
    content {
      sid       = "WriteWarcFiles"
      actions   = ["s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
      resources = ["${aws_s3_bucket.warc.arn}/${var.region}/*"]
    }
  }

  dynamic "statement" {
    for_each = each.key == "fetch" ? [1] : []
    content {
      sid       = "ListOwnWarcPrefix"
      actions   = ["s3:ListBucket", "s3:ListBucketMultipartUploads"]
      resources = [aws_s3_bucket.warc.arn]
      condition {
        test     = "StringLike"
        variable = "s3:prefix"
        values   = ["${var.region}/*"]
      }
    }
  }

  # A policy document needs one statement; this one allows nothing a machine could use.
  statement {
    sid       = "DescribeOwnRegion"
    actions   = ["ec2:DescribeAvailabilityZones"]
    resources = ["*"]
  }
}

resource "aws_iam_role_policy" "role" {
  for_each = toset(local.roles)

  name   = "${local.name}-${each.key}"
  role   = aws_iam_role.role[each.key].id
  policy = data.aws_iam_policy_document.role[each.key].json
}

resource "aws_iam_role_policy_attachment" "ssm" {
  for_each = var.enable_ssm ? toset(local.roles) : toset([])

  role       = aws_iam_role.role[each.key].name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
}
