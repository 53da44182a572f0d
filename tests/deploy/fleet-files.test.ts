/**
 * Every file the fleet module renders, checked by the tools that will read it: shell scripts parse
 * (`sh -n`), systemd units pass `systemd-analyze verify` (with their commands in place), environment files
 * read back to exactly the environment rendered (quoting of values with spaces), and each machine's
 * cloud-init user data is YAML that writes exactly that machine's files and enables its unit.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { natsServerBinary } from "../support/nats.ts";
import { loopbackOverrides, nodeIds, provisionMachine, readEnvironmentFile } from "./support/loopback-fleet.ts";
import { type FleetMachine, type FleetOutput, renderFleet } from "./support/terraform.ts";

const REGIONS = { "us-east-1": { nats: 3, redis: 2, frontier: 2, fetch: 2 }, "eu-west-1": { nats: 1, frontier: 1, fetch: 1 } };
const SECRETS = {
  admin_token: "files/admin-token",
  redis_password: "files/redis",
  nats_coordinator_password: "files/nats-coordinator",
  nats_frontier_password: "files/nats-frontier",
  nats_fetch_password: "files/nats-fetch",
  nats_system_password: "files/nats-system",
};
const VALUES: Record<string, string> = Object.fromEntries(Object.values(SECRETS).map((name) => [name, `v-${crypto.randomUUID()}`]));
const USER_AGENT = 'PoliteCrawler/0.1 (+https://example.org/bot; "polite" $HOME \\ test)';

let root: string;
let fleet: FleetOutput & {
  fetch_groups: Record<
    string,
    { files: Record<string, { mode: string; content: string }>; user_data: string; env: Record<string, string> }
  >;
};

function which(name: string): string {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${name} is not on PATH`);
  return r.stdout.trim();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fleet-files-"));
  fleet = renderFleet({
    fleet: {
      name: "test",
      crawler_version: "test",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: "us-east-1",
      control_region: "us-east-1",
      coordinators: 2,
      regions: {
        "us-east-1": REGIONS["us-east-1"],
        "eu-west-1": { ...REGIONS["eu-west-1"], host_suffixes: [".de"], fetch_runtime: "deno" },
      },
      policy: { CRAWL_USER_AGENT: USER_AGENT, CRAWL_MIN_GAP: "2s" },
    },
    secrets: SECRETS,
    paths: {
      bun: process.execPath,
      deno: which("deno"),
      nats_server: natsServerBinary(),
      redis: process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server",
    },
    listen_host: "127.0.0.1",
    machine_overrides: await loopbackOverrides(nodeIds(2, REGIONS), root),
  }) as typeof fleet;
}, 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const machines = () => Object.entries(fleet.machines);

test("fleet files - every rendered shell script parses, and every machine's load-secrets runs", () => {
  let scripts = 0;
  for (const [id, m] of machines()) {
    for (const [path, file] of Object.entries(m.files)) {
      if (!file.content.startsWith("#!/bin/sh")) continue;
      scripts++;
      const r = spawnSync("sh", ["-n"], { input: file.content, encoding: "utf8" });
      expect({ id, path, code: r.status, err: r.stderr }).toEqual({ id, path, code: 0, err: "" });
    }
    const env = provisionMachine(m, VALUES);
    for (const [name, template] of Object.entries(m.secret_env)) {
      expect(env[name]).toBe(template.replace(/\{\{([a-z_]+)\}\}/g, (_, key: string) => VALUES[SECRETS[key as keyof typeof SECRETS]]!));
    }
  }
  expect(scripts).toBeGreaterThanOrEqual(machines().length * 2);
});

test("fleet files - load-secrets refuses a secret that would break the URL it goes into", () => {
  const m = fleet.machines["us-east-1-frontier-1"]!;
  expect(() => provisionMachine(m, { ...VALUES, "files/redis": "pass/word+1" })).toThrow(/the secret files\/redis is not URL-safe/);
  expect(() => provisionMachine(m, { ...VALUES, "files/redis": "pass word" })).toThrow(
    /the secret files\/redis is empty or holds characters/,
  );
  provisionMachine(m, VALUES);
});

test("fleet files - every systemd unit passes systemd-analyze verify", () => {
  const units = join(root, "units");
  for (const [id, m] of machines()) {
    provisionMachine(m, VALUES);
    const dir = join(units, id);
    mkdirSync(dir, { recursive: true });
    const names: string[] = [];
    for (const [path, file] of Object.entries(m.files)) {
      if (!path.startsWith("/etc/systemd/system/")) continue;
      writeFileSync(join(dir, basename(path)), file.content);
      names.push(join(dir, basename(path)));
    }
    expect(names.length).toBe(2);
    const r = spawnSync("systemd-analyze", ["verify", ...names], { encoding: "utf8" });
    expect({ id, code: r.status, out: `${r.stdout}${r.stderr}`.trim() }).toEqual({ id, code: 0, out: "" });
  }
}, 120_000);

test("fleet files - environment files read back to exactly the rendered environment", () => {
  for (const [id, m] of machines()) {
    const file = Object.entries(m.files).find(([p]) => p === join(m.dirs.config, `${m.role}.env`))!;
    expect({ id, env: readEnvironmentFile(file[1].content) }).toEqual({ id, env: m.env });
    if (m.role === "frontier" || m.role === "fetch") expect(m.env["CRAWL_USER_AGENT"]).toBe(USER_AGENT);
  }
});

function checkUserData(id: string, userData: string, files: FleetMachine["files"], unit: string): void {
  expect(userData.startsWith("#cloud-config\n")).toBe(true);
  const doc = Bun.YAML.parse(userData) as {
    write_files: { path: string; content: string; permissions: string }[];
    runcmd: string[][];
    packages: string[];
  };
  const written = Object.fromEntries(doc.write_files.map((f) => [f.path, { mode: f.permissions, content: f.content }]));
  expect({ id, written }).toEqual({ id, written: files });
  expect(doc.runcmd.at(-1)).toEqual(["systemctl", "enable", "--now", "crawler-secrets.service", unit]);
  expect(doc.packages.length).toBeGreaterThan(0);
}

test("fleet files - each machine's cloud-init user data is YAML that writes exactly its files and enables its unit", () => {
  for (const [id, m] of machines()) checkUserData(id, m.user_data, m.files, m.unit);
  for (const [region, g] of Object.entries(fleet.fetch_groups)) {
    checkUserData(`${region} fetch group`, g.user_data, g.files, "crawler-fetch.service");
    const doc = Bun.YAML.parse(g.user_data) as { runcmd: string[][] };
    expect(JSON.stringify(doc.runcmd)).toContain("CRAWL_NODE_ID=%s-%s");
    expect(g.env["CRAWL_NODE_ID"]).toBeUndefined();
  }
  expect(readFileSync(join(fleet.machines["us-east-1-frontier-1"]!.dirs.config, "crawlctl.env"), "utf8")).toBe(
    `CRAWLCTL_TOKEN=${VALUES["files/admin-token"]}\n`,
  );
});
