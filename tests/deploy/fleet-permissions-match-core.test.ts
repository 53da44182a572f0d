/**
 * The fleet module renders NATS permissions and the Redis ACL in HCL (deploy/terraform/modules/fleet,
 * nats.tf and redis.tf); `cluster up --secure` and the processes' tests use core/cluster's table
 * (`natsPermissions`, `REDIS_CRAWLER_ACL`). This test reads what the fleet actually renders for a
 * two-region fleet, each NATS server's configuration and each Redis server's boot script, and requires it
 * to equal core's, so the two never drift.
 */
import { beforeAll, expect, test } from "bun:test";
import { NATS_ROLES, natsPermissions, REDIS_CRAWLER_ACL, REDIS_CRAWLER_USER, type NatsRole } from "../../core/cluster/index.ts";
import { renderFleet, type FleetOutput } from "./support/terraform.ts";

const REGIONS = ["us-east-1", "eu-west-1"];
let fleet: FleetOutput;

beforeAll(() => {
  fleet = renderFleet({
    fleet: {
      name: "perm",
      crawler_version: "test",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: "us-east-1",
      control_region: "us-east-1",
      coordinators: 1,
      regions: {
        "us-east-1": { nats: 3, frontier: 1, fetch: 1 },
        "eu-west-1": { nats: 1, frontier: 1, fetch: 1, host_suffixes: [".de"] },
      },
    },
    secrets: {
      admin_token: "a",
      redis_password: "r",
      nats_coordinator_password: "c",
      nats_frontier_password: "f",
      nats_fetch_password: "x",
      nats_system_password: "s",
    },
  });
}, 180_000);

/** A role's publish and subscribe lists, read back from a rendered nats-server configuration. */
function renderedPermissions(conf: string, role: NatsRole): { publish: string[]; subscribe: string[] } {
  const start = conf.indexOf(`user: "${role}"`);
  if (start < 0) throw new Error(`no user "${role}" in:\n${conf}`);
  const rest = conf.slice(start + 1);
  const end = rest.search(/user: "|SYS \{/);
  const block = end < 0 ? rest : rest.slice(0, end);
  const publish = block.slice(block.indexOf("publish:"), block.indexOf("subscribe:"));
  const subscribe = block.slice(block.indexOf("subscribe:"));
  const quoted = (text: string) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  return { publish: quoted(publish), subscribe: quoted(subscribe.slice(0, subscribe.indexOf("}"))) };
}

test("fleet permissions - every NATS server gives each role exactly core's subjects for its region", () => {
  const servers = Object.keys(fleet.nats_configs).sort();
  expect(servers).toEqual(["eu-west-1-nats-1", "us-east-1-nats-1", "us-east-1-nats-2", "us-east-1-nats-3"]);
  for (const id of servers) {
    const region = fleet.machines[id]!.region;
    for (const role of NATS_ROLES) {
      const rendered = renderedPermissions(fleet.nats_configs[id]!, role);
      const core = natsPermissions(role, region, REGIONS);
      expect({ id, role, publish: [...rendered.publish].sort(), subscribe: rendered.subscribe }).toEqual({
        id,
        role,
        publish: [...core.publish].sort(),
        subscribe: [...core.subscribe],
      });
      // No subject twice: a duplicate would hide a difference in the sorted comparison.
      expect(new Set(rendered.publish).size).toBe(rendered.publish.length);
    }
  }
});

test("fleet permissions - every Redis server gives the crawler's user exactly core's ACL", () => {
  const redis = Object.entries(fleet.machines).filter(([, m]) => m.role === "redis");
  expect(redis.length).toBe(2);
  for (const [id, m] of redis) {
    const script = Object.entries(m.files).find(([path]) => path.endsWith("/load-secrets"))?.[1].content ?? "";
    const line = /user (\S+) on >\$s_redis_password ([^"]+)"/.exec(script);
    expect({ id, user: line?.[1], acl: line?.[2] }).toEqual({ id, user: REDIS_CRAWLER_USER, acl: REDIS_CRAWLER_ACL });
  }
});
