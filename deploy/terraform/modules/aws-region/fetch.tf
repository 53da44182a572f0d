# Fetch nodes: an auto-scaling group of identical machines, each naming itself at boot. A rolling instance
# refresh replaces them a few at a time; each stops with the fetch node's grace period (it stops taking
# tasks and finishes or gives back what it holds), and a task it could not finish is redelivered.

resource "aws_launch_template" "fetch" {
  name_prefix   = "${local.name}-fetch-"
  image_id      = var.ami_id
  instance_type = var.instance_types.fetch
  user_data     = base64gzip(var.fetch_group.user_data)

  iam_instance_profile {
    name = aws_iam_instance_profile.role["fetch"].name
  }

  network_interfaces {
    associate_public_ip_address = var.fetch_public_ip
    security_groups             = [aws_security_group.fetch.id]
    delete_on_termination       = true
  }

  metadata_options {
    http_tokens   = "required"
    http_endpoint = "enabled"
  }

  block_device_mappings {
    device_name = "/dev/xvda"
    ebs {
      volume_type           = "gp3"
      volume_size           = var.root_volume_gb.fetch
      encrypted             = true
      delete_on_termination = true
    }
  }

  tag_specifications {
    resource_type = "instance"
    tags          = merge(local.tags, { Name = "${local.name}-fetch", Role = "fetch" })
  }

  tag_specifications {
    resource_type = "volume"
    tags          = merge(local.tags, { Name = "${local.name}-fetch", Role = "fetch" })
  }

  tags = merge(local.tags, { Name = "${local.name}-fetch", Role = "fetch" })
}

resource "aws_autoscaling_group" "fetch" {
  name_prefix         = "${local.name}-fetch-"
  vpc_zone_identifier = var.fetch_subnet_ids
  min_size            = var.fetch_scaling.min
  max_size            = var.fetch_scaling.max
  desired_capacity    = coalesce(var.fetch_scaling.desired, local.fetch_count)

  health_check_type         = "EC2"
  health_check_grace_period = 300
  default_instance_warmup   = 120

  launch_template {
    id      = aws_launch_template.fetch.id
    version = aws_launch_template.fetch.latest_version
  }

  instance_refresh {
    strategy = "Rolling"
    preferences {
      min_healthy_percentage = 90
      instance_warmup        = 120
    }
  }

  dynamic "tag" {
    for_each = merge(local.tags, { Name = "${local.name}-fetch", Role = "fetch" })
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }
}
