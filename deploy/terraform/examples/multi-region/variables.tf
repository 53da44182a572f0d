variable "crawler_version" {
  description = "The crawler release to run (a tag of the repository)."
  type        = string
}

variable "artifact_url" {
  description = "Where machines download that release: a tarball of the repository at the tag (https:// or s3://)."
  type        = string
}

variable "artifact_sha256" {
  description = "SHA-256 of the release tarball."
  type        = string
}

variable "artifact_s3_arn" {
  description = "ARN of the release object when artifact_url is s3:// (the machines' roles may read it); null otherwise."
  type        = string
  default     = null
}

variable "node_counts" {
  description = "Nodes per region and role. The defaults are the seed plan's size (100 M pages a day): see README.md."
  type = map(object({
    nats     = optional(number, 3)
    redis    = optional(number, 1)
    frontier = number
    fetch    = number
  }))
  default = {
    us-east-1 = { frontier = 4, fetch = 7 }
    eu-west-1 = { frontier = 4, fetch = 7 }
  }
}

variable "eu_host_suffixes" {
  description = "Host suffixes crawled from eu-west-1; every other host is crawled from us-east-1."
  type        = list(string)
  default     = [".eu", ".de", ".fr", ".uk", ".nl", ".es", ".it", ".pl", ".se", ".ch", ".at", ".be", ".dk", ".fi", ".no", ".ie", ".pt", ".cz"]
}

variable "networks" {
  description = "Per AWS region: the VPC (connected to the other region's VPC by peering or a transit gateway), its CIDR, private subnets (NATS, Redis, frontier nodes, coordinators) and public subnets (fetch nodes, which reach the web without a NAT gateway)."
  type = map(object({
    vpc_id             = string
    vpc_cidr           = string
    private_subnet_ids = list(string)
    public_subnet_ids  = list(string)
  }))
  validation {
    condition     = alltrue([for r in ["us-east-1", "eu-west-1"] : contains(keys(var.networks), r)])
    error_message = "networks needs us-east-1 and eu-west-1."
  }
}

variable "ami_ids" {
  description = "Debian 12 (bookworm) image id per AWS region."
  type        = map(string)
}

variable "operator_cidrs" {
  description = "Networks the operators reach the admin API, gRPC and metrics from (a VPN, a bastion's subnet). Never 0.0.0.0/0."
  type        = list(string)
}

variable "warc_bucket_prefix" {
  description = "Start of the WARC bucket names; each region's bucket is <prefix>-<region>."
  type        = string
}

variable "tls" {
  description = "TLS on every link (certificates in the secret store under crawl/<fleet>/tls/). Needs the processes' TLS settings (see the fleet module's pending_process_settings output)."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags on every resource."
  type        = map(string)
  default     = { Project = "crawler" }
}
