# Provider-free on purpose: only Terraform's built-in `terraform_data`, locals and outputs, so that
# `terraform init`, `validate` and `test` run with no provider download.
terraform {
  required_version = ">= 1.6.0"
}
