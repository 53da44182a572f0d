/**
 * deploy/terraform, checked offline: `terraform fmt` is clean, the fleet module's own `.tftest.hcl` runs
 * pass under `terraform test` (in a temporary copy, so no .terraform directory is left in the tree), and
 * the modules that need the AWS provider (which cannot be downloaded here) are checked structurally from
 * their parsed HCL: the module layout, typed and described variables, described outputs, tags on every
 * resource that takes them, no provider configuration, and no security group rule that opens a port to
 * the whole internet. A missing terraform binary fails these tests; it never skips them.
 */
import { expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseHcl } from "./support/hcl.ts";
import { FLEET_MODULE, REPO_ROOT, TERRAFORM_DIR, terraform, terraformBinary } from "./support/terraform.ts";

const MODULES = ["fleet", "aws-region", "aws-global"];
const AWS_MODULES = ["aws-region", "aws-global"];

// Resource types of the AWS provider that take `tags`; each one in our modules must set them.
const TAGGABLE = new Set([
  "aws_instance",
  "aws_ebs_volume",
  "aws_security_group",
  "aws_launch_template",
  "aws_s3_bucket",
  "aws_iam_role",
  "aws_iam_instance_profile",
  "aws_route53_zone",
  "aws_vpc_security_group_ingress_rule",
  "aws_vpc_security_group_egress_rule",
  "aws_secretsmanager_secret",
]);

type Block = Record<string, unknown>;
type Hcl = Record<string, Record<string, Block[]> | Record<string, Record<string, Block[]>> | Block[]>;

/** Every .tf file of a directory, parsed and merged block type by block type. */
async function parseDir(dir: string): Promise<{ files: string[]; blocks: Record<string, unknown[]>; text: string }> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".tf"))
    .sort();
  const blocks: Record<string, unknown[]> = {};
  let text = "";
  for (const file of files) {
    const source = readFileSync(join(dir, file), "utf8");
    text += source;
    const parsed = (await parseHcl(file, source)) as Hcl;
    for (const [kind, body] of Object.entries(parsed)) (blocks[kind] ??= []).push(body);
  }
  return { files, blocks, text };
}

/** name -> block of a block kind with one label (variable "x", output "y"). */
function labelled(blocks: Record<string, unknown[]>, kind: string): Map<string, Block> {
  const out = new Map<string, Block>();
  for (const body of blocks[kind] ?? [])
    for (const [name, list] of Object.entries(body as Record<string, Block[]>)) out.set(name, list[0]!);
  return out;
}

/** `type.name` -> block of every resource. */
function resources(blocks: Record<string, unknown[]>): Map<string, Block> {
  const out = new Map<string, Block>();
  for (const body of blocks["resource"] ?? []) {
    for (const [type, named] of Object.entries(body as Record<string, Record<string, Block[]>>)) {
      for (const [name, list] of Object.entries(named)) out.set(`${type}.${name}`, list[0]!);
    }
  }
  return out;
}

test("terraform - the binary is on PATH (the deploy tests fail without it)", () => {
  const bin = terraformBinary();
  const r = terraform(["version"], REPO_ROOT, mkdtempSync(join(tmpdir(), "tf-data-")));
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^Terraform v1\.\d+/);
  expect(bin).toEndWith("terraform");
});

test("terraform - deploy/terraform is fmt-clean", () => {
  const data = mkdtempSync(join(tmpdir(), "tf-data-"));
  try {
    const r = terraform(["fmt", "-check", "-recursive", "-diff", "-no-color", TERRAFORM_DIR], REPO_ROOT, data);
    expect({ code: r.code, unformatted: r.stdout }).toEqual({ code: 0, unformatted: "" });
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

test("terraform - the fleet module inits, validates and passes its terraform test runs offline", () => {
  const dir = mkdtempSync(join(tmpdir(), "fleet-module-"));
  try {
    cpSync(FLEET_MODULE, dir, { recursive: true, filter: (src) => !src.includes(".terraform") });
    const data = join(dir, ".terraform");
    const init = terraform(["init", "-input=false", "-no-color"], dir, data);
    expect({ step: "init", code: init.code, out: init.code === 0 ? "" : init.stdout + init.stderr }).toEqual({
      step: "init",
      code: 0,
      out: "",
    });
    const validate = terraform(["validate", "-no-color"], dir, data);
    expect({ step: "validate", code: validate.code, out: validate.code === 0 ? "" : validate.stdout + validate.stderr }).toEqual({
      step: "validate",
      code: 0,
      out: "",
    });
    const run = terraform(["test", "-no-color"], dir, data);
    const summary = /(\d+) passed, (\d+) failed/.exec(run.stdout);
    expect({ code: run.code, summary: summary?.[0], out: run.code === 0 ? "" : run.stdout + run.stderr }).toMatchObject({
      code: 0,
      out: "",
    });
    expect(Number(summary![1])).toBeGreaterThanOrEqual(20);
    expect(Number(summary![2])).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(existsSync(join(FLEET_MODULE, ".terraform"))).toBe(false);
}, 300_000);

for (const name of MODULES) {
  test(`terraform module ${name} - layout, typed and described variables, described outputs, no provider configuration`, async () => {
    const dir = join(TERRAFORM_DIR, "modules", name);
    const { files, blocks } = await parseDir(dir);
    expect(files).toEqual(expect.arrayContaining(["main.tf", "variables.tf", "outputs.tf", "versions.tf"]));
    expect(blocks["provider"]).toBeUndefined();

    const variables = labelled(blocks, "variable");
    expect(variables.size).toBeGreaterThan(0);
    const untyped = [...variables].filter(
      ([, v]) => typeof v["type"] !== "string" || typeof v["description"] !== "string" || (v["description"] as string).length < 10,
    );
    expect(untyped.map(([n]) => n)).toEqual([]);

    const outputs = labelled(blocks, "output");
    expect(outputs.size).toBeGreaterThan(0);
    expect([...outputs].filter(([, o]) => typeof o["description"] !== "string").map(([n]) => n)).toEqual([]);

    const terraformBlocks = (blocks["terraform"] ?? []) as Block[][];
    const required = terraformBlocks.flat().flatMap((t) => (t["required_providers"] as Block[] | undefined) ?? []);
    if (AWS_MODULES.includes(name)) expect(required.some((r) => "aws" in r)).toBe(true);
    else expect(resources(blocks).size === 0 || [...resources(blocks).keys()].every((k) => k.startsWith("terraform_data."))).toBe(true);
  });
}

for (const name of AWS_MODULES) {
  test(`terraform module ${name} - every resource that takes tags is tagged`, async () => {
    const { blocks } = await parseDir(join(TERRAFORM_DIR, "modules", name));
    const all = resources(blocks);
    const untagged = [...all].filter(
      ([key, body]) =>
        TAGGABLE.has(key.split(".")[0]!) && !(typeof body["tags"] === "string" && /local\.tags|var\.tags/.test(body["tags"])),
    );
    expect(untagged.map(([k]) => k)).toEqual([]);
    // An auto-scaling group tags its instances through `tag` blocks.
    for (const [key, body] of all)
      if (key.startsWith("aws_autoscaling_group.")) expect(JSON.stringify(body["dynamic"] ?? body["tag"])).toContain("local.tags");
  });

  test(`terraform module ${name} - no ingress is open to the world, and every CIDR input refuses 0.0.0.0/0`, async () => {
    const { blocks } = await parseDir(join(TERRAFORM_DIR, "modules", name));
    for (const [key, body] of resources(blocks)) {
      const text = JSON.stringify(body);
      const ingress =
        key.startsWith("aws_vpc_security_group_ingress_rule.") || (key.startsWith("aws_security_group.") && "ingress" in body);
      if (ingress) expect({ key, world: /0\.0\.0\.0\/0|::\/0/.test(text) }).toEqual({ key, world: false });
      // Inline rules would bypass these checks; the modules use one resource per rule.
      if (key.startsWith("aws_security_group."))
        expect({ key, inline: "ingress" in body || "egress" in body }).toEqual({ key, inline: false });
    }
    const variables = labelled(blocks, "variable");
    const cidrInputs = [...variables.keys()].filter((n) => n.endsWith("_cidrs"));
    expect(cidrInputs.length).toBeGreaterThan(0);
    for (const n of cidrInputs) {
      const validation = JSON.stringify(variables.get(n)!["validation"] ?? "");
      expect({ variable: n, refusesWorld: validation.includes('\\"0.0.0.0/0\\"') && validation.includes('\\"::/0\\"') }).toEqual({
        variable: n,
        refusesWorld: true,
      });
    }
    // The ingress rules take their sources only from those inputs (or from security groups).
    const rules = [...resources(blocks)].filter(([k]) => k.startsWith("aws_vpc_security_group_ingress_rule."));
    expect(rules.length).toBeGreaterThan(0);
    const localsText = JSON.stringify(blocks["locals"] ?? []);
    for (const source of localsText.match(/var\.[a-z_]+_cidrs/g) ?? []) expect(cidrInputs).toContain(source.slice(4));
  });
}

test("terraform example multi-region - uses the modules, configures providers only at its root, and names both regions", async () => {
  const dir = join(TERRAFORM_DIR, "examples/multi-region");
  const { blocks, text } = await parseDir(dir);
  const modules = labelled(blocks, "module");
  expect(new Set([...modules.values()].map((m) => m["source"]))).toEqual(
    new Set(["../../modules/fleet", "../../modules/aws-global", "../../modules/aws-region"]),
  );
  expect(text).toContain('region = "us-east-1"');
  expect(text).toContain('region = "eu-west-1"');
  expect(existsSync(join(dir, "README.md"))).toBe(true);
  for (const v of labelled(blocks, "variable").values()) expect(typeof v["description"]).toBe("string");
});
