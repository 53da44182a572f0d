# Bad descriptions are refused before anything is rendered.

variables {
  fleet = {
    name            = "crawl"
    crawler_version = "v0.1.0"
    artifact_url    = "https://releases.example.org/crawler-v0.1.0.tar.gz"
    artifact_sha256 = "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"
    default_region  = "us-east-1"
    control_region  = "us-east-1"
    regions = {
      us-east-1 = { frontier = 1, fetch = 1 }
      eu-west-1 = { host_suffixes = [".de"], frontier = 1, fetch = 1 }
    }
  }
  secrets = {
    admin_token               = "crawl/admin-token"
    redis_password            = "crawl/redis-password"
    nats_coordinator_password = "crawl/nats-coordinator"
    nats_frontier_password    = "crawl/nats-frontier"
    nats_fetch_password       = "crawl/nats-fetch"
    nats_system_password      = "crawl/nats-system"
  }
}

run "a_two_server_nats_cluster_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { regions = { us-east-1 = { nats = 2, frontier = 1, fetch = 1 } } })
  }
  expect_failures = [var.fleet]
}

run "zero_frontier_nodes_are_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { regions = { us-east-1 = { frontier = 0, fetch = 1 } } })
  }
  expect_failures = [var.fleet]
}

run "a_region_name_with_capitals_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { default_region = "US_East", control_region = "US_East", regions = { US_East = { frontier = 1, fetch = 1 } } })
  }
  expect_failures = [var.fleet]
}

run "a_default_region_outside_the_regions_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { default_region = "ap-south-1" })
  }
  expect_failures = [var.fleet]
}

run "a_region_without_rules_that_is_not_the_default_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { regions = { us-east-1 = { frontier = 1, fetch = 1 }, eu-west-1 = { frontier = 1, fetch = 1 } } })
  }
  expect_failures = [var.fleet]
}

run "one_suffix_in_two_regions_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { regions = { us-east-1 = { host_suffixes = ["de"], frontier = 1, fetch = 1 }, eu-west-1 = { host_suffixes = [".de"], frontier = 1, fetch = 1 } } })
  }
  expect_failures = [var.fleet]
}

run "partitions_out_of_range_are_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { partitions = 5000 })
  }
  expect_failures = [var.fleet]
}

run "a_port_out_of_range_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { ports = { nats_client = 70000 } })
  }
  expect_failures = [var.fleet]
}

run "nats_ports_that_collide_are_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { ports = { nats_client = 6222 } })
  }
  expect_failures = [var.fleet]
}

run "an_unknown_policy_setting_is_refused" {
  command = plan
  variables {
    fleet = merge(var.fleet, { policy = { CRAWL_ADMIN_TOKEN = "sneaky" } })
  }
  expect_failures = [var.fleet]
}

run "one_secret_name_shared_by_two_roles_is_refused" {
  command = plan
  variables {
    secrets = merge(var.secrets, { nats_fetch_password = "crawl/nats-frontier" })
  }
  expect_failures = [var.secrets]
}

run "an_override_for_a_machine_that_does_not_exist_is_refused" {
  command = plan
  variables {
    machine_overrides = { us-east-1-frontier-9 = { host = "127.0.0.1" } }
  }
  expect_failures = [terraform_data.fleet]
}

run "overrides_that_put_two_services_on_one_port_are_refused" {
  command = plan
  variables {
    machine_overrides = {
      us-east-1-frontier-1 = { host = "127.0.0.1", ports = { grpc = 20001, http = 20002 } }
      eu-west-1-frontier-1 = { host = "127.0.0.1", ports = { grpc = 20001, http = 20003 } }
    }
  }
  expect_failures = [terraform_data.fleet]
}

run "half_of_the_warc_credentials_is_refused" {
  command = plan

  variables {
    secrets = merge(var.secrets, { warc_access_key_id = "crawl/warc-key-id" })
  }
  expect_failures = [var.secrets]
}
