# The fleet's one description. Everything a machine needs is derived from these variables by locals in
# this module; no provider is involved, so every value can be checked offline by `terraform test`.

variable "fleet" {
  description = <<-EOT
    The whole fleet: its name, the crawler release every machine runs, the regions with their host-suffix
    rules and node counts, the partition count, the coordinators (one active, the rest standbys, all in
    control_region), the ports of every service, crawl policy overrides (CRAWL_* policy env vars, e.g.
    { CRAWL_MIN_GAP = "2s" }), drain and stop timeouts, and an optional HTTP proxy and WARC upload target.
  EOT
  type = object({
    name = string
    # The crawler release: a tarball of the repository at a tagged commit, checked by its SHA-256.
    crawler_version = string
    artifact_url    = string
    artifact_sha256 = string
    bun_version     = optional(string, "1.4.4")
    deno_version    = optional(string, "2.9.6")

    default_region  = string
    control_region  = string
    coordinators    = optional(number, 2)
    partitions      = optional(number, 64)
    internal_domain = optional(string, "crawl.internal")

    regions = map(object({
      host_suffixes     = optional(list(string), [])
      nats              = optional(number, 3)
      redis             = optional(number, 1)
      frontier          = number
      fetch             = number
      fetch_runtime     = optional(string, "bun")
      fetch_concurrency = optional(number, 256)
      frontier_credit   = optional(number, 512)
    }))

    ports = optional(object({
      nats_client      = optional(number, 4222)
      nats_cluster     = optional(number, 6222)
      nats_gateway     = optional(number, 7222)
      nats_monitor     = optional(number, 8222)
      redis            = optional(number, 6379)
      coordinator_grpc = optional(number, 7400)
      coordinator_http = optional(number, 7480)
      frontier_grpc    = optional(number, 7410)
      frontier_http    = optional(number, 7490)
      fetch_http       = optional(number, 7491)
    }), {})

    policy                      = optional(map(string), {})
    drain_timeout_seconds       = optional(number, 300)
    frontier_stop_grace_seconds = optional(number, 10)
    fetch_stop_grace_seconds    = optional(number, 25)
    proxy                       = optional(string)
    allow_private_addresses     = optional(bool, false)
    warc_upload                 = optional(string)
    warc_upload_endpoint        = optional(string)
    warc_upload_region          = optional(string)
    redis_maxmemory             = optional(string)
  })

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}$", var.fleet.name))
    error_message = "fleet.name must be 1-31 characters of a-z, 0-9 and -, starting with a letter."
  }
  validation {
    condition     = length(var.fleet.regions) >= 1 && alltrue([for r in keys(var.fleet.regions) : can(regex("^[a-z][a-z0-9-]{0,39}$", r))])
    error_message = "fleet.regions needs at least one region, and every region name must be 1-40 characters of a-z, 0-9 and -, starting with a letter (it is part of NATS subjects, stream names and node ids)."
  }
  validation {
    condition     = contains(keys(var.fleet.regions), var.fleet.default_region)
    error_message = "fleet.default_region must be one of the regions in fleet.regions."
  }
  validation {
    condition     = contains(keys(var.fleet.regions), var.fleet.control_region)
    error_message = "fleet.control_region (where the coordinators run) must be one of the regions in fleet.regions."
  }
  validation {
    condition     = var.fleet.coordinators >= 1 && var.fleet.coordinators <= 3 && floor(var.fleet.coordinators) == var.fleet.coordinators
    error_message = "fleet.coordinators must be 1, 2 or 3 (one active, the others standbys)."
  }
  validation {
    condition     = var.fleet.partitions >= 1 && var.fleet.partitions <= 4096 && floor(var.fleet.partitions) == var.fleet.partitions
    error_message = "fleet.partitions must be a whole number from 1 to 4096 (fixed for the fleet's life; keep it in the hundreds: one durable consumer per partition)."
  }
  validation {
    condition = alltrue(flatten([for r in values(var.fleet.regions) : [
      for n in [r.redis, r.frontier, r.fetch] : n >= 1 && n <= 500 && floor(n) == n
    ]]))
    error_message = "Every region needs at least 1 (and at most 500) redis, frontier and fetch nodes, as whole numbers."
  }
  validation {
    condition     = alltrue([for r in values(var.fleet.regions) : (r.nats == 1 || (r.nats >= 3 && r.nats <= 7)) && floor(r.nats) == r.nats])
    error_message = "A region's NATS cluster has 1 server (no replication) or 3 to 7 (streams with 3 replicas survive one lost server); 2 cannot keep a quorum when one is lost."
  }
  validation {
    condition     = alltrue([for r in values(var.fleet.regions) : contains(["bun", "deno"], r.fetch_runtime)])
    error_message = "A region's fetch_runtime must be \"bun\" or \"deno\"."
  }
  validation {
    condition = alltrue([for r in values(var.fleet.regions) :
      r.fetch_concurrency >= 1 && r.fetch_concurrency <= 10000 && r.frontier_credit >= 1 && r.frontier_credit <= 100000
    ])
    error_message = "fetch_concurrency must be 1-10000 and frontier_credit 1-100000."
  }
  validation {
    condition = alltrue(flatten([for r in values(var.fleet.regions) : [
      for s in r.host_suffixes : can(regex("^\\.?[a-z0-9-]+(\\.[a-z0-9-]+)*$", s))
    ]]))
    error_message = "Host suffixes are lower-case host names or TLDs such as \".de\" or \"example.co.uk\" (leading dot optional)."
  }
  validation {
    # The coordinator learns the regions from the rules: a region no rule names (other than the default)
    # would get no streams and never receive a host.
    condition     = alltrue([for name, r in var.fleet.regions : name == var.fleet.default_region || length(r.host_suffixes) > 0])
    error_message = "Every region other than default_region needs at least one host suffix in host_suffixes; otherwise no host is ever routed to it."
  }
  validation {
    condition     = length(distinct(flatten([for r in values(var.fleet.regions) : [for s in r.host_suffixes : trimprefix(s, ".")]]))) == length(flatten([for r in values(var.fleet.regions) : r.host_suffixes]))
    error_message = "A host suffix may appear only once across all regions (one suffix, one region)."
  }
  validation {
    condition     = alltrue([for p in values(var.fleet.ports) : p >= 1 && p <= 65535 && floor(p) == p])
    error_message = "Every port in fleet.ports must be a whole number from 1 to 65535."
  }
  validation {
    condition     = length(distinct([var.fleet.ports.nats_client, var.fleet.ports.nats_cluster, var.fleet.ports.nats_gateway, var.fleet.ports.nats_monitor])) == 4
    error_message = "The NATS client, cluster, gateway and monitoring ports must differ (they share a machine)."
  }
  validation {
    condition     = var.fleet.ports.coordinator_grpc != var.fleet.ports.coordinator_http && var.fleet.ports.frontier_grpc != var.fleet.ports.frontier_http
    error_message = "A coordinator's and a frontier node's gRPC and HTTP ports must differ."
  }
  validation {
    condition = alltrue([for k in keys(var.fleet.policy) : contains([
      "CRAWL_USER_AGENT", "CRAWL_MIN_GAP", "CRAWL_GAP_FETCH_MULTIPLIER", "CRAWL_MAX_GAP", "CRAWL_CRAWL_DELAY_CAP",
      "CRAWL_HOST_FAILURE_PENALTY", "CRAWL_FETCH_LEASE", "CRAWL_CONNECT_TIMEOUT", "CRAWL_RESPONSE_TIMEOUT", "CRAWL_MAX_BODY",
      "CRAWL_MAX_REDIRECTS", "CRAWL_ROBOTS_MAX_AGE", "CRAWL_ALLOW_ADDRESSES", "CRAWL_DENY_ADDRESSES", "CRAWL_DENY_HOSTS", "CRAWL_RETRY_DELAYS", "CRAWL_MAX_FAILURES", "CRAWL_DEAD_FOR",
      "CRAWL_REFETCH_INITIAL", "CRAWL_REFETCH_MIN", "CRAWL_REFETCH_MAX", "CRAWL_SHALLOW_DEPTH", "CRAWL_MAX_URL_LENGTH",
      "CRAWL_MAX_DEPTH", "CRAWL_MAX_REPEATED_SEGMENT", "CRAWL_MAX_QUEUE_PER_HOST", "CRAWL_MAX_PAGES_PER_HOST_PER_DAY",
      "CRAWL_MAX_QUEUED_PER_PATTERN",
    ], k)])
    error_message = "fleet.policy takes only the crawl policy env vars of docs/configuration.md (CRAWL_MIN_GAP, CRAWL_USER_AGENT, ...); node settings have their own fields."
  }
  validation {
    condition     = alltrue([for v in values(var.fleet.policy) : !can(regex("[\n\r]", v))])
    error_message = "fleet.policy values must be single lines."
  }
  validation {
    condition     = var.fleet.drain_timeout_seconds >= 0 && var.fleet.drain_timeout_seconds <= 3600 && var.fleet.frontier_stop_grace_seconds >= 0 && var.fleet.frontier_stop_grace_seconds <= 600 && var.fleet.fetch_stop_grace_seconds >= 0 && var.fleet.fetch_stop_grace_seconds <= 600
    error_message = "drain_timeout_seconds must be 0-3600, and the stop grace periods 0-600."
  }
  validation {
    condition     = var.fleet.warc_upload == null || can(regex("^s3://[a-z0-9{][a-z0-9.{}-]{1,80}(/[^\\s]*)?$", var.fleet.warc_upload))
    error_message = "fleet.warc_upload must be s3://bucket or s3://bucket/prefix; {region} in it stands for each region's name (one bucket per region)."
  }
  validation {
    condition     = var.fleet.warc_upload_endpoint == null || can(regex("^https?://[A-Za-z0-9.:\\[\\]-]+(/[^\\s?#]*)?$", var.fleet.warc_upload_endpoint))
    error_message = "fleet.warc_upload_endpoint must be the http:// or https:// base URL of an S3-compatible store (no query, fragment or credentials)."
  }
  validation {
    condition     = var.fleet.warc_upload_region == null || can(regex("^([a-z0-9-]|\\{region\\}){1,64}$", var.fleet.warc_upload_region))
    error_message = "fleet.warc_upload_region must look like an S3 region (us-east-1), or contain {region} for each region's name."
  }
  validation {
    condition     = var.fleet.proxy == null || can(regex("^https?://[^\\s]+$", var.fleet.proxy))
    error_message = "fleet.proxy must be an http:// or https:// URL."
  }
  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$", var.fleet.internal_domain))
    error_message = "fleet.internal_domain must be a DNS name with at least two labels, e.g. crawl.internal."
  }
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", var.fleet.artifact_sha256)) && can(regex("^(https|s3)://[^\\s]+$", var.fleet.artifact_url))
    error_message = "fleet.artifact_url must be an https:// or s3:// URL and fleet.artifact_sha256 its SHA-256 in lower-case hex."
  }
  validation {
    condition     = can(regex("^[A-Za-z0-9._-]{1,64}$", var.fleet.crawler_version)) && can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", var.fleet.bun_version)) && can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", var.fleet.deno_version))
    error_message = "crawler_version must be a tag-like word; bun_version and deno_version must be x.y.z."
  }
  validation {
    condition     = var.fleet.redis_maxmemory == null || can(regex("^[0-9]+(kb|mb|gb)$", var.fleet.redis_maxmemory))
    error_message = "fleet.redis_maxmemory must look like 12gb or 512mb."
  }
}

variable "secrets" {
  description = <<-EOT
    Names (never values) of the fleet's secrets in the secret store. A machine reads only the secrets its
    role needs, at boot, with the secret_reader script, and writes them to files readable by the crawler
    user alone. Values must be URL-safe (A-Z a-z 0-9 . _ ~ -) because the Redis password travels in a URL;
    the WARC store's secret access key may also hold + / = (as AWS secret keys do). warc_access_key_id and
    warc_secret_access_key are the fetch nodes' credentials for fleet.warc_upload (AWS_ACCESS_KEY_ID and
    AWS_SECRET_ACCESS_KEY); without them the fleet renders the upload, but the fetch nodes have no
    credentials to use (pending_process_settings says so: an instance role's credentials are not read yet).
  EOT
  type = object({
    admin_token               = string
    redis_password            = string
    nats_coordinator_password = string
    nats_frontier_password    = string
    nats_fetch_password       = string
    nats_system_password      = string
    warc_access_key_id        = optional(string)
    warc_secret_access_key    = optional(string)
  })
  validation {
    condition     = alltrue([for n in values(var.secrets) : can(regex("^[A-Za-z0-9/_+=.@-]{1,256}$", n)) if n != null])
    error_message = "Secret names must be 1-256 characters of A-Z a-z 0-9 / _ + = . @ - (names in the secret store, not values)."
  }
  validation {
    condition     = length(distinct(compact(values(var.secrets)))) == length(compact(values(var.secrets)))
    error_message = "Each secret needs its own name: sharing one value between roles defeats per-role credentials."
  }
  validation {
    condition     = (var.secrets.warc_access_key_id == null) == (var.secrets.warc_secret_access_key == null)
    error_message = "secrets.warc_access_key_id and secrets.warc_secret_access_key go together: name both or neither."
  }
}

variable "security" {
  description = <<-EOT
    Authentication and TLS. nats_auth: per-role NATS users with subject permissions (on by default).
    tls.enabled: TLS on NATS (clients, routes, gateways), Redis, gRPC (mutual between nodes) and the admin
    API, with the CA, certificate and key read from these paths on every machine. When tls.secret_prefix is
    set, the machine fetches them at boot from the secrets <prefix>/ca.pem, <prefix>/<identity>.pem and
    <prefix>/<identity>.key (identity: the node id, or <region>-fetch for the fetch nodes of an auto-scaling
    group); otherwise they must already be on the machine image.
  EOT
  type = object({
    nats_auth = optional(bool, true)
    tls = optional(object({
      enabled       = optional(bool, false)
      ca_file       = optional(string, "/etc/crawler/tls/ca.pem")
      cert_file     = optional(string, "/etc/crawler/tls/node.pem")
      key_file      = optional(string, "/etc/crawler/tls/node.key")
      secret_prefix = optional(string)
    }), {})
  })
  default = {}
  validation {
    condition     = alltrue([for p in [var.security.tls.ca_file, var.security.tls.cert_file, var.security.tls.key_file] : can(regex("^/[^\\s\"'$]+$", p))])
    error_message = "TLS file paths must be absolute paths without spaces, quotes or $."
  }
}

variable "paths" {
  description = "Where things live on a machine: the crawler's code, its configuration, its state (frontier store, WARC files, NATS and Redis data) and its helper scripts. A test that boots the rendered files on one machine points them into a temporary directory."
  type = object({
    install_dir = optional(string, "/opt/crawler")
    config_dir  = optional(string, "/etc/crawler")
    state_dir   = optional(string, "/var/lib/crawler")
    bin_dir     = optional(string, "/usr/local/lib/crawler")
    bun         = optional(string, "/usr/local/bin/bun")
    deno        = optional(string, "/usr/local/bin/deno")
    nats_server = optional(string, "/usr/sbin/nats-server")
    redis       = optional(string, "/usr/bin/redis-server")
  })
  default = {}
  validation {
    condition     = alltrue([for p in values(var.paths) : can(regex("^/[^\\s\"'$]*[^/]$", p))])
    error_message = "Every path must be absolute, without a trailing slash, spaces, quotes or $."
  }
}

variable "secret_reader" {
  description = "Body of the shell script (/bin/sh) that prints the value of the secret named \"$1\" on stdout and exits non-zero when it cannot. The cloud module passes one for its secret store; the default reads the file <config_dir>/secret-store/<name> (for tests and hand-provisioned machines)."
  type        = string
  default     = null
}

variable "listen_host" {
  description = "Address every service binds to. 0.0.0.0 on machines (security groups limit who reaches them); 127.0.0.1 when a test runs the whole fleet on one machine."
  type        = string
  default     = "0.0.0.0"
  validation {
    condition     = can(cidrhost("${var.listen_host}/32", 0))
    error_message = "listen_host must be an IPv4 address such as 0.0.0.0 or 127.0.0.1."
  }
}

variable "machine_overrides" {
  description = <<-EOT
    Per machine (by node id): the host name others dial instead of <node id>.<internal_domain>, ports
    instead of fleet.ports, its own config_dir, state_dir and bin_dir instead of paths, and its own
    tls_dir (ca.pem, node.pem, node.key) instead of the security.tls file paths. Port keys:
    client, cluster, gateway, monitor (NATS servers), redis (Redis), grpc and http (coordinators and
    frontier nodes), http (fetch nodes). A test runs the whole fleet on one machine this way (127.0.0.1,
    distinct ports, one directory per machine) and changes nothing else.
  EOT
  type = map(object({
    host       = optional(string)
    ports      = optional(map(number), {})
    config_dir = optional(string)
    state_dir  = optional(string)
    bin_dir    = optional(string)
    tls_dir    = optional(string)
  }))
  default = {}
  validation {
    condition     = alltrue(flatten([for o in values(var.machine_overrides) : [for k, p in o.ports : contains(["client", "cluster", "gateway", "monitor", "redis", "grpc", "http"], k) && p >= 1 && p <= 65535]]))
    error_message = "machine_overrides ports take the keys client, cluster, gateway, monitor, redis, grpc and http, each 1-65535."
  }
  validation {
    condition     = alltrue([for o in values(var.machine_overrides) : o.host == null || can(regex("^[A-Za-z0-9.-]+$", o.host))])
    error_message = "machine_overrides hosts must be host names or IPv4 addresses."
  }
  validation {
    condition     = alltrue(flatten([for o in values(var.machine_overrides) : [for p in [o.config_dir, o.state_dir, o.bin_dir, o.tls_dir] : p == null || can(regex("^/[^\\s\"'$]*[^/]$", p))]]))
    error_message = "machine_overrides directories must be absolute paths without a trailing slash, spaces, quotes or $."
  }
}

variable "extra_packages" {
  description = "Debian packages every crawler machine (coordinator, frontier, fetch) installs besides its own, e.g. the secret store's command-line client that secret_reader calls."
  type        = list(string)
  default     = []
  validation {
    condition     = alltrue([for p in var.extra_packages : can(regex("^[a-z0-9][a-z0-9+.-]+$", p))])
    error_message = "extra_packages must be Debian package names."
  }
}
