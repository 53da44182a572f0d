# The fleet's global part on AWS, in the control region: the coordinators (one active, the others
# standbys taking over by lease) and the private DNS zone every region's machines are named in.

variable "fleet_name" {
  description = "The fleet's name (fleet.name of the fleet module), used in resource names and tags."
  type        = string
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}$", var.fleet_name))
    error_message = "fleet_name must be 1-31 characters of a-z, 0-9 and -, starting with a letter."
  }
}

variable "machines" {
  description = "The fleet module's `machines` output; this module places the coordinators."
  type = map(object({
    role      = string
    region    = string
    index     = number
    user_data = string
  }))
  validation {
    condition     = length([for m in values(var.machines) : m if m.role == "coordinator"]) >= 1
    error_message = "machines must be the fleet module's machines output, with at least one coordinator."
  }
}

variable "ports" {
  description = "The fleet module's `ports` output (coordinator_grpc and coordinator_http are opened here)."
  type = object({
    coordinator_grpc = number
    coordinator_http = number
  })
}

variable "internal_domain" {
  description = "The fleet's internal_domain: the private hosted zone created here."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$", var.internal_domain))
    error_message = "internal_domain must be a DNS name with at least two labels."
  }
}

variable "vpc_id" {
  description = "VPC of the control region, where the coordinators run."
  type        = string
  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must look like vpc-0123abcd."
  }
}

variable "other_vpcs" {
  description = "The other regions' VPCs (AWS region -> VPC id), associated with the private zone so that every machine resolves every name."
  type        = map(string)
  default     = {}
  validation {
    condition     = alltrue([for v in values(var.other_vpcs) : can(regex("^vpc-[0-9a-f]+$", v))])
    error_message = "other_vpcs values must be VPC ids (vpc-...)."
  }
}

variable "subnet_ids" {
  description = "Private subnets of the coordinators; coordinator n goes to subnet n mod count, so the standby sits in another zone when there are two subnets."
  type        = list(string)
  validation {
    condition     = length(var.subnet_ids) >= 1 && alltrue([for s in var.subnet_ids : can(regex("^subnet-[0-9a-f]+$", s))])
    error_message = "subnet_ids needs at least one subnet id (subnet-...)."
  }
}

variable "operator_cidrs" {
  description = "Networks crawlctl and the admin API's clients come from. Never the whole internet."
  type        = list(string)
  validation {
    condition     = length(var.operator_cidrs) >= 1 && alltrue([for c in var.operator_cidrs : can(cidrhost(c, 0)) && !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "operator_cidrs needs at least one CIDR block, and never 0.0.0.0/0 or ::/0: the admin API and gRPC are not for the world."
  }
}

variable "frontier_cidrs" {
  description = "Networks of every region's frontier nodes: a frontier node's stop calls a coordinator's gRPC to drain itself."
  type        = list(string)
  validation {
    condition     = alltrue([for c in var.frontier_cidrs : can(cidrhost(c, 0)) && !contains(["0.0.0.0/0", "::/0"], c)])
    error_message = "frontier_cidrs must be CIDR blocks, never 0.0.0.0/0 or ::/0."
  }
}

variable "ami_id" {
  description = "Machine image of the coordinators: Debian 12 (bookworm) with cloud-init."
  type        = string
  validation {
    condition     = can(regex("^ami-[0-9a-f]+$", var.ami_id))
    error_message = "ami_id must look like ami-0123abcd."
  }
}

variable "instance_type" {
  description = "EC2 instance type of the coordinators."
  type        = string
  default     = "t3.medium"
}

variable "secret_names" {
  description = "Secret names the coordinators read (from the fleet module's machines[coordinator-*].secret_names), plus tls_secret_prefix when TLS files come from the secret store."
  type = object({
    names             = list(string)
    tls_secret_prefix = optional(string)
  })
}

variable "artifact_s3_arn" {
  description = "ARN of the crawler release object when fleet.artifact_url is s3://; null when it is https://."
  type        = string
  default     = null
}

variable "enable_ssm" {
  description = "Let operators reach the coordinators through AWS Systems Manager Session Manager (no SSH port is ever opened)."
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags added to every resource that takes tags."
  type        = map(string)
  default     = {}
}
