# One region of the fleet on AWS. The machines' configuration comes from the fleet module
# (modules/fleet); this module only places those machines, their disks, network rules, bucket and roles.

variable "region" {
  description = "The fleet region this module places (a key of the fleet description's regions); also used in names and tags."
  type        = string
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,39}$", var.region))
    error_message = "region must be a fleet region name: 1-40 characters of a-z, 0-9 and -."
  }
}

variable "fleet_name" {
  description = "The fleet's name (fleet.name of the fleet module), used in resource names and tags."
  type        = string
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}$", var.fleet_name))
    error_message = "fleet_name must be 1-31 characters of a-z, 0-9 and -, starting with a letter."
  }
}

variable "machines" {
  description = "The fleet module's `machines` output (every machine of the fleet); this module places the nats, redis and frontier machines of var.region."
  type = map(object({
    role      = string
    region    = string
    index     = number
    user_data = string
  }))
  validation {
    condition     = alltrue([for m in values(var.machines) : contains(["coordinator", "nats", "redis", "frontier", "fetch"], m.role)])
    error_message = "machines must be the fleet module's machines output."
  }
}

variable "fetch_group" {
  description = "The fleet module's fetch_groups[region]: the user data every fetch node of this region's auto-scaling group boots with."
  type = object({
    user_data = string
  })
}

variable "ports" {
  description = "The fleet module's `ports` output: the ports the security groups open."
  type = object({
    nats_client      = number
    nats_cluster     = number
    nats_gateway     = number
    nats_monitor     = number
    redis            = number
    coordinator_grpc = number
    coordinator_http = number
    frontier_grpc    = number
    frontier_http    = number
    fetch_http       = number
  })
}

variable "vpc_id" {
  description = "VPC the region's machines run in."
  type        = string
  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must look like vpc-0123abcd."
  }
}

variable "private_subnet_ids" {
  description = "Private subnets (spread over availability zones) for the NATS, Redis and frontier machines; machine n goes to subnet n mod count."
  type        = list(string)
  validation {
    condition     = length(var.private_subnet_ids) >= 1 && alltrue([for s in var.private_subnet_ids : can(regex("^subnet-[0-9a-f]+$", s))])
    error_message = "private_subnet_ids needs at least one subnet id (subnet-...)."
  }
}

variable "fetch_subnet_ids" {
  description = "Subnets of the fetch nodes. Public subnets with fetch_public_ip = true let them reach the web without a NAT gateway (which would bill every crawled byte); no inbound traffic from the internet is allowed either way."
  type        = list(string)
  validation {
    condition     = length(var.fetch_subnet_ids) >= 1 && alltrue([for s in var.fetch_subnet_ids : can(regex("^subnet-[0-9a-f]+$", s))])
    error_message = "fetch_subnet_ids needs at least one subnet id (subnet-...)."
  }
}

variable "fetch_public_ip" {
  description = "Give each fetch node a public IPv4 address (egress to the web without NAT)."
  type        = bool
  default     = true
}

variable "operator_cidrs" {
  description = "Networks the operators (crawlctl, dashboards, Prometheus) reach the nodes' metrics and NATS monitoring from. Never the whole internet."
  type        = list(string)
  default     = []
  validation {
    condition     = alltrue([for c in var.operator_cidrs : can(cidrhost(c, 0)) && !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "operator_cidrs must be CIDR blocks, and never 0.0.0.0/0 or ::/0: the admin API, gRPC and metrics are not for the world."
  }
}

variable "coordinator_cidrs" {
  description = "Networks the coordinators run in (the control region's private subnets): they reach this region's NATS and the frontier nodes' gRPC."
  type        = list(string)
  validation {
    condition     = length(var.coordinator_cidrs) >= 1 && alltrue([for c in var.coordinator_cidrs : can(cidrhost(c, 0)) && !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "coordinator_cidrs needs at least one CIDR block, never 0.0.0.0/0 or ::/0."
  }
}

variable "peer_nats_cidrs" {
  description = "Networks of the other regions' NATS servers, allowed to this region's gateway port. The regions' VPCs must be connected (peering or a transit gateway)."
  type        = list(string)
  default     = []
  validation {
    condition     = alltrue([for c in var.peer_nats_cidrs : can(cidrhost(c, 0)) && !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "peer_nats_cidrs must be CIDR blocks, never 0.0.0.0/0 or ::/0."
  }
}

variable "ami_id" {
  description = "Machine image of every machine: Debian 12 (bookworm) with cloud-init, for nats-server 2.9 and redis-server 7.0 from its packages."
  type        = string
  validation {
    condition     = can(regex("^ami-[0-9a-f]+$", var.ami_id))
    error_message = "ami_id must look like ami-0123abcd."
  }
}

variable "instance_types" {
  description = "EC2 instance type per role. docs/sizing.md gives machine counts per role for a vCPU and memory size (`bun run docs:sizing --vcpu N --memory-gib N`), and how long one Redis's memory lasts."
  type = object({
    nats     = optional(string, "c6i.large")
    redis    = optional(string, "r6i.xlarge")
    frontier = optional(string, "m6i.xlarge")
    fetch    = optional(string, "c6i.xlarge")
  })
  default = {}
}

variable "root_volume_gb" {
  description = "Root volume size per role, in GiB (NATS streams and the Redis AOF live on the root volume; a replaced NATS server catches up from its peers)."
  type = object({
    nats     = optional(number, 100)
    redis    = optional(number, 100)
    frontier = optional(number, 20)
    fetch    = optional(number, 100)
  })
  default = {}
  validation {
    condition     = alltrue([for v in values(var.root_volume_gb) : v >= 8 && v <= 16384])
    error_message = "Root volumes must be 8-16384 GiB."
  }
}

variable "frontier_data_volume" {
  description = "Each frontier node's own EBS data volume (its SQLite store). It outlives the instance: a replacement instance re-attaches it and resumes. Size it from docs/sizing.md (frontier disk per machine and its write rate: a fetched URL keeps ~202 B, a queued one ~66 B (~104 B with a queue size limit))."
  type = object({
    size_gb    = optional(number, 200)
    type       = optional(string, "gp3")
    iops       = optional(number, 3000)
    throughput = optional(number, 250)
  })
  default = {}
  validation {
    condition     = var.frontier_data_volume.size_gb >= 10 && var.frontier_data_volume.size_gb <= 16384 && contains(["gp3", "io2"], var.frontier_data_volume.type)
    error_message = "frontier_data_volume needs 10-16384 GiB of gp3 or io2."
  }
}

variable "fetch_scaling" {
  description = "Size of the fetch auto-scaling group. desired = null keeps the fleet description's fetch count for this region."
  type = object({
    min     = optional(number, 1)
    max     = optional(number, 50)
    desired = optional(number)
  })
  default = {}
  validation {
    condition     = var.fetch_scaling.min >= 0 && var.fetch_scaling.max >= var.fetch_scaling.min && (var.fetch_scaling.desired == null || (var.fetch_scaling.desired >= var.fetch_scaling.min && var.fetch_scaling.desired <= var.fetch_scaling.max))
    error_message = "fetch_scaling needs 0 <= min <= desired <= max."
  }
}

variable "dns_zone_id" {
  description = "Route 53 private hosted zone of the fleet's internal_domain (modules/aws-global creates it); each machine gets <node id>.<internal_domain>."
  type        = string
}

variable "internal_domain" {
  description = "The fleet's internal_domain (fleet.internal_domain)."
  type        = string
}

variable "warc_bucket_name" {
  description = "Name of this region's WARC bucket (globally unique). The fetch nodes upload finished WARC and CDXJ files under <region>/."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.warc_bucket_name))
    error_message = "warc_bucket_name must be a valid S3 bucket name."
  }
}

variable "warc_lifecycle" {
  description = "Lifecycle of WARC objects: days to Standard-IA, days to Glacier Instant Retrieval, days to expiry (null: keep forever); unfinished multipart uploads are aborted after abort_multipart_days."
  type = object({
    infrequent_access_days = optional(number, 30)
    glacier_ir_days        = optional(number, 90)
    expire_days            = optional(number)
    abort_multipart_days   = optional(number, 3)
  })
  default = {}
  validation {
    condition = (var.warc_lifecycle.infrequent_access_days >= 30 && var.warc_lifecycle.glacier_ir_days > var.warc_lifecycle.infrequent_access_days
    && (var.warc_lifecycle.expire_days == null || try(var.warc_lifecycle.expire_days > var.warc_lifecycle.glacier_ir_days, false)) && var.warc_lifecycle.abort_multipart_days >= 1)
    error_message = "WARC lifecycle: Standard-IA after at least 30 days, Glacier IR later, expiry (if any) later still, and multipart aborts after at least 1 day."
  }
}

variable "secret_names" {
  description = "Per role (nats, redis, frontier, fetch): the secret names its machines read (from the fleet module's machines[*].secret_names), plus tls_secret_prefix when TLS files come from the secret store. Each role's IAM role may read only these."
  type = object({
    by_role           = map(list(string))
    tls_secret_prefix = optional(string)
  })
}

variable "artifact_s3_arn" {
  description = "ARN of the crawler release object when fleet.artifact_url is s3:// (the crawler machines may read it); null when it is https://."
  type        = string
  default     = null
}

variable "enable_ssm" {
  description = "Let operators reach the machines through AWS Systems Manager Session Manager (no SSH port is ever opened)."
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags added to every resource that takes tags."
  type        = map(string)
  default     = {}
}
