# <node id>.<internal_domain> for every placed machine: the names the fleet module rendered into NATS
# routes, Redis URLs and the frontier nodes' advertised gRPC address. A replaced instance keeps its name.

resource "aws_route53_record" "machine" {
  for_each = merge(
    { for id, i in aws_instance.server : id => i.private_ip },
    { for id, i in aws_instance.frontier : id => i.private_ip },
  )

  zone_id = var.dns_zone_id
  name    = "${each.key}.${var.internal_domain}"
  type    = "A"
  ttl     = 30
  records = [each.value]
}
