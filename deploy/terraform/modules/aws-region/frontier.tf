# Frontier nodes: one instance per node, each with its own EBS data volume holding its store. The volume
# is a separate resource that is never replaced with the instance: a new instance (new version, new type)
# gets the same volume attached, finds it by its label (prepare-data-disk) and resumes with the same node
# id. Detaching stops the old instance first, and stopping runs the unit's ExecStop: the drain, so the
# node's partitions move by handoff before the disk leaves.

resource "aws_ebs_volume" "frontier_data" {
  for_each = local.fronts

  availability_zone = data.aws_subnet.private[local.subnet_of[each.key]].availability_zone
  size              = var.frontier_data_volume.size_gb
  type              = var.frontier_data_volume.type
  iops              = var.frontier_data_volume.iops
  throughput        = var.frontier_data_volume.type == "gp3" ? var.frontier_data_volume.throughput : null
  encrypted         = true

  tags = merge(local.tags, { Name = "${each.key}-data", Role = "frontier", NodeId = each.key })

  lifecycle {
    prevent_destroy = true
  }
}

resource "aws_instance" "frontier" {
  for_each = local.fronts

  ami                    = var.ami_id
  instance_type          = var.instance_types.frontier
  subnet_id              = local.subnet_of[each.key]
  vpc_security_group_ids = [aws_security_group.frontier.id]
  iam_instance_profile   = aws_iam_instance_profile.role["frontier"].name
  user_data_base64       = base64gzip(each.value.user_data)

  user_data_replace_on_change = true

  metadata_options {
    http_tokens   = "required"
    http_endpoint = "enabled"
  }

  root_block_device {
    volume_type = "gp3"
    volume_size = var.root_volume_gb.frontier
    encrypted   = true
  }

  tags        = merge(local.tags, { Name = each.key, Role = "frontier", NodeId = each.key })
  volume_tags = merge(local.tags, { Name = "${each.key}-root", Role = "frontier" })
}

resource "aws_volume_attachment" "frontier_data" {
  for_each = local.fronts

  device_name = "/dev/sdf"
  volume_id   = aws_ebs_volume.frontier_data[each.key].id
  instance_id = aws_instance.frontier[each.key].id

  # Stop the instance (drain first, via systemd) before the volume leaves it.
  stop_instance_before_detaching = true
}

data "aws_subnet" "private" {
  for_each = toset(var.private_subnet_ids)
  id       = each.value
}
