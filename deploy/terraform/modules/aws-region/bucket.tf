# The region's WARC bucket: private, encrypted, TLS only, with lifecycle rules that move old crawl files
# to cheaper storage and clean up multipart uploads a killed fetch node left unfinished.

resource "aws_s3_bucket" "warc" {
  bucket = var.warc_bucket_name
  tags   = merge(local.tags, { Name = var.warc_bucket_name, Role = "warc" })
}

resource "aws_s3_bucket_public_access_block" "warc" {
  bucket                  = aws_s3_bucket.warc.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "warc" {
  bucket = aws_s3_bucket.warc.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "warc" {
  bucket = aws_s3_bucket.warc.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "warc" {
  bucket = aws_s3_bucket.warc.id

  rule {
    id     = "warc-tiers"
    status = "Enabled"
    filter {
      prefix = "${var.region}/"
    }
    transition {
      days          = var.warc_lifecycle.infrequent_access_days
      storage_class = "STANDARD_IA"
    }
    transition {
      days          = var.warc_lifecycle.glacier_ir_days
      storage_class = "GLACIER_IR"
    }
    dynamic "expiration" {
      for_each = var.warc_lifecycle.expire_days == null ? [] : [var.warc_lifecycle.expire_days]
      content {
        days = expiration.value
      }
    }
  }

  rule {
    id     = "abort-unfinished-uploads"
    status = "Enabled"
    filter {}
    abort_incomplete_multipart_upload {
      days_after_initiation = var.warc_lifecycle.abort_multipart_days
    }
  }
}

data "aws_iam_policy_document" "warc_bucket" {
  statement {
    sid       = "DenyPlainHttp"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [aws_s3_bucket.warc.arn, "${aws_s3_bucket.warc.arn}/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "warc" {
  bucket = aws_s3_bucket.warc.id
  policy = data.aws_iam_policy_document.warc_bucket.json
}
