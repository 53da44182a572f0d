# The nats-server configuration of every NATS server (nats-server 2.9 syntax, as Debian ships it).
#
# Each region is one NATS cluster named after the region (routes to every server of the region, itself
# included: a one-server cluster still needs a route for JetStream in a supercluster), joined to every
# other region by a gateway. JetStream runs as one supercluster-wide meta group; each region's streams
# live in the region's cluster.
#
# Per-role users (account CRAWL) may publish only what the role publishes and use only the JetStream API
# of the streams it works on. The table is core/cluster/nats-permissions.ts's, written again here in HCL;
# tests/deploy/fleet-permissions-match-core.test.ts requires the rendered lists to equal it:
#   coordinator  seeds to crawl.urls.<any>.<p>; creates every region's streams and consumers; cluster-state
#                bucket read and write (node records, lease), and the ring's own bucket (crawl-ring)
#   frontier     tasks to crawl.fetch.<R> (and .render, and fetch node inboxes crawl.fetch.<R>.to.<id>); URLs to crawl.urls.<any>.<p> (gRPC Enqueue); pulls and acks
#                urls-<p> and results-<p> of its region; writes node records, the ring (handoff; in the
#                ring's bucket, every role reads and watches it) and
#                the scope roots (scope.<host>, the hosts of the seeds it admits), the jobs' page budgets
#                (budgets.<job> and budgets.<job>.<node>);
#                its partitions' replicated state (stream CRAWL_STATE_<R>, subjects crawl.state.<R>.>,
#                object store crawl-state-<R>: written, read from a sequence, purged below a snapshot);
#                the feed of fetched pages (crawl.pages.<job>, stream CRAWL_PAGES)
#   fetch        links to crawl.urls.<any>.<p>; results to crawl.results.<R>.<p>; pulls and acks the
#                region's task consumers (`fetchers`, `renderers` with a browser, its own inbox `inbox-<id>`
#                and those of gone fetch nodes it is heir of), lists them and deletes a gone node's empty
#                inbox; writes node records; links for a region that does not answer to
#                crawl.forward.<R>.<to>.<p>, and pulls and acks the region's `forwarders` to move them on
# Every role subscribes to _INBOX.> (JetStream answers, pulled messages and publish acks all arrive on
# the client's inbox) and to the leader-elected advisories of consumers and streams, so a pull lost with
# a consumer's leader, or a publish sent while a stream had none (a server of the region lost), is sent
# again the moment a new leader exists. Passwords come from the server's environment
# ($NATS_PASSWORD_<ROLE>), written at boot from the secret store; the configuration holds no secret.

locals {
  kv_stream = "KV_crawl-cluster"
  kv_prefix = "$KV.crawl-cluster"
  # The ring alone, in a bucket of its own (a write is checked against the stream's last sequence).
  ring_stream = "KV_crawl-ring"
  ring_key    = "$KV.crawl-ring.ring"

  streams_of = { for r in local.region_names : r => {
    urls    = "CRAWL_URLS_${upper(replace(r, "-", "_"))}"
    fetch   = "CRAWL_FETCH_${upper(replace(r, "-", "_"))}"
    results = "CRAWL_RESULTS_${upper(replace(r, "-", "_"))}"
    forward = "CRAWL_FORWARD_${upper(replace(r, "-", "_"))}"
  } }

  # Create (idempotently), read, list and update a stream and its durable consumers: what ensureRegionStreams
  # (adapters/nats/region-setup.ts, which updates the fetch nodes' inboxes too) and the KV bucket's open do.
  # No delete, no purge.
  js_manage = { for r in local.region_names : r => flatten([for s in values(local.streams_of[r]) : [
    "$JS.API.STREAM.INFO.${s}",
    "$JS.API.STREAM.CREATE.${s}",
    "$JS.API.STREAM.UPDATE.${s}",
    "$JS.API.CONSUMER.INFO.${s}.*",
    "$JS.API.CONSUMER.LIST.${s}",
    "$JS.API.CONSUMER.CREATE.${s}",
    "$JS.API.CONSUMER.CREATE.${s}.>",
    "$JS.API.CONSUMER.DURABLE.CREATE.${s}.*",
  ]]) }

  # A frontier node's replicated partition state: the journal and claims stream and the snapshots' object
  # store (its stream OBJ_crawl-state-<R>, subjects $O.crawl-state-<R>.>), created, read and purged.
  js_state = { for r in local.region_names : r => concat(
    ["crawl.state.${r}.>", "$O.crawl-state-${r}.>"],
    flatten([for s in ["CRAWL_STATE_${upper(replace(r, "-", "_"))}", "OBJ_crawl-state-${r}"] : [
      "$JS.API.STREAM.INFO.${s}",
      "$JS.API.STREAM.CREATE.${s}",
      "$JS.API.STREAM.UPDATE.${s}",
      "$JS.API.STREAM.PURGE.${s}",
      "$JS.API.STREAM.MSG.GET.${s}",
      "$JS.API.DIRECT.GET.${s}",
      "$JS.API.DIRECT.GET.${s}.>",
      "$JS.API.CONSUMER.CREATE.${s}",
      "$JS.API.CONSUMER.CREATE.${s}.>",
      "$JS.API.CONSUMER.INFO.${s}.*",
      "$JS.API.CONSUMER.DELETE.${s}.*",
      "$JS.API.CONSUMER.MSG.NEXT.${s}.*",
      "$JS.ACK.${s}.>",
      "$JS.FC.${s}.>",
    ]]),
  ) }

  # The cluster-state bucket and the ring's bucket: opened (created when missing, their copies brought to
  # CRAWL_NATS_REPLICAS), read, watched (ordered consumers answer flow control), and written under the keys
  # given per role.
  js_kv = concat(["$JS.API.INFO"], flatten([for s in [local.kv_stream, local.ring_stream] : [
    "$JS.API.STREAM.INFO.${s}",
    "$JS.API.STREAM.CREATE.${s}",
    "$JS.API.STREAM.UPDATE.${s}",
    "$JS.API.STREAM.MSG.GET.${s}",
    "$JS.API.DIRECT.GET.${s}",
    "$JS.API.DIRECT.GET.${s}.>",
    "$JS.API.CONSUMER.CREATE.${s}",
    "$JS.API.CONSUMER.CREATE.${s}.>",
    "$JS.API.CONSUMER.INFO.${s}.*",
    "$JS.API.CONSUMER.DELETE.${s}.*",
    "$JS.FC.${s}.>",
  ]]))

  # The feed of fetched pages (stream CRAWL_PAGES): frontier nodes publish to it and open it; the
  # coordinator also sets its retention and reads it (direct gets).
  feed_publish = ["crawl.pages.*", "$JS.API.STREAM.INFO.CRAWL_PAGES", "$JS.API.STREAM.CREATE.CRAWL_PAGES"]
  feed_manage = concat(local.feed_publish, [
    "$JS.API.STREAM.UPDATE.CRAWL_PAGES",
    "$JS.API.STREAM.MSG.GET.CRAWL_PAGES",
    "$JS.API.DIRECT.GET.CRAWL_PAGES",
    "$JS.API.DIRECT.GET.CRAWL_PAGES.>",
  ])

  nats_publish = { for r in local.region_names : r => {
    coordinator = concat(
      ["crawl.urls.*.*", "${local.kv_prefix}.>", local.ring_key],
      local.js_kv,
      flatten([for rr in local.region_names : local.js_manage[rr]]),
      local.feed_manage,
    )
    frontier = concat(
      ["crawl.fetch.${r}", "crawl.fetch.${r}.render", "crawl.fetch.${r}.to.*", "crawl.urls.*.*", "${local.kv_prefix}.nodes.*", local.ring_key, "${local.kv_prefix}.scope.>", "${local.kv_prefix}.budgets.>"],
      local.js_kv,
      local.js_manage[r],
      [
        "$JS.API.CONSUMER.MSG.NEXT.${local.streams_of[r].urls}.*",
        "$JS.API.CONSUMER.MSG.NEXT.${local.streams_of[r].results}.*",
        "$JS.ACK.${local.streams_of[r].urls}.>",
        "$JS.ACK.${local.streams_of[r].results}.>",
      ],
      local.js_state[r],
      local.feed_publish,
    )
    fetch = concat(
      ["crawl.urls.*.*", "crawl.results.${r}.*", "crawl.forward.${r}.*.*", "${local.kv_prefix}.nodes.*"],
      local.js_kv,
      local.js_manage[r],
      [
        "$JS.API.CONSUMER.MSG.NEXT.${local.streams_of[r].fetch}.*",
        "$JS.API.CONSUMER.DELETE.${local.streams_of[r].fetch}.*",
        "$JS.ACK.${local.streams_of[r].fetch}.>",
        "$JS.API.CONSUMER.MSG.NEXT.${local.streams_of[r].forward}.forwarders",
        "$JS.ACK.${local.streams_of[r].forward}.>",
      ],
    )
  } }

  nats_conf = { for id, m in local.machines : id => templatefile("${path.module}/templates/nats-server.conf.tftpl", {
    id          = id
    region      = m.region
    listen_host = var.listen_host
    ports       = m.ports
    store_dir   = "${local.dirs[id].state}/nats"
    routes      = [for s in local.nats_of[m.region] : "nats-route://${s.host}:${s.ports.cluster}"]
    gateways = [for r in local.region_names : {
      name = r
      urls = [for s in local.nats_of[r] : "nats://${s.host}:${s.ports.gateway}"]
    } if r != m.region]
    tls        = local.tls_on ? local.tls_files[id] : null
    auth       = local.nats_auth
    publish    = local.nats_publish[m.region]
    subscribe  = ["_INBOX.>", "$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.>", "$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.>"]
    fleet_name = var.fleet.name
  }) if m.role == "nats" }
}
