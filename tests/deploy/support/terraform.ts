/**
 * Terraform for tests, offline: finds the binary (a missing one is a failure, never a skip), runs it with
 * its data directory in a temporary folder so nothing is left in the tree, and applies the fleet module
 * (which has no provider) to get what it renders. `renderFleet` is the way a test takes the fleet's
 * rendered files, environments and command lines (deploy/terraform/README.md, "the deploy contract").
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../../..");
export const TERRAFORM_DIR = join(REPO_ROOT, "deploy/terraform");
export const FLEET_MODULE = join(TERRAFORM_DIR, "modules/fleet");

/** The terraform binary on PATH; throws (so the test fails) when there is none. */
export function terraformBinary(): string {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, "terraform");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("terraform is not on PATH: the deploy tests need it (it is on the machine image; CI checks for it in .ci/run)");
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs terraform in `cwd` with its plugin/data directory in `dataDir`, never prompting, without colour. */
export function terraform(args: string[], cwd: string, dataDir: string): RunResult {
  const r = spawnSync(terraformBinary(), args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, TF_DATA_DIR: dataDir, TF_IN_AUTOMATION: "1", TF_INPUT: "0", CHECKPOINT_DISABLE: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

export interface FleetFile {
  mode: string;
  content: string;
}

export interface FleetMachine {
  role: "coordinator" | "nats" | "redis" | "frontier" | "fetch";
  region: string;
  index: number;
  host: string;
  ports: Record<string, number>;
  argv: string[];
  env: Record<string, string>;
  secret_env: Record<string, string>;
  secret_names: Record<string, string>;
  working_dir: string;
  unit: string;
  dirs: { config: string; state: string; bin: string };
  files: Record<string, FleetFile>;
  user_data: string;
}

export interface FleetOutput {
  machines: Record<string, FleetMachine>;
  nats_configs: Record<string, string>;
  redis_configs: Record<string, string>;
  region_rules: string;
  coordinator_admin_urls: string[];
  pending_process_settings: Record<string, string>;
  regions: Record<
    string,
    {
      nats: string[];
      redis: string[];
      frontier: string[];
      fetch: string[];
      nats_urls: string;
      streams: { urls: string; fetch: string; results: string };
    }
  >;
}

/**
 * Applies the fleet module to `variables` (the module's variables by name) in a temporary root module and
 * returns its outputs. Throws with terraform's own message when the description is refused.
 */
export function renderFleet(variables: Record<string, unknown>): FleetOutput {
  const dir = mkdtempSync(join(tmpdir(), "fleet-render-"));
  try {
    writeFileSync(join(dir, "fleet.json"), JSON.stringify(variables));
    const passed = Object.keys(variables)
      .map((name) => `  ${name} = local.v.${name}`)
      .join("\n");
    writeFileSync(
      join(dir, "main.tf"),
      `locals {\n  v = jsondecode(file("\${path.module}/fleet.json"))\n}\n\nmodule "fleet" {\n  source = "${FLEET_MODULE}"\n${passed}\n}\n\noutput "fleet" {\n  value = module.fleet\n}\n`,
    );
    const data = join(dir, ".terraform");
    for (const args of [
      ["init", "-input=false", "-no-color"],
      ["apply", "-auto-approve", "-input=false", "-no-color", "-lock=false"],
    ]) {
      const r = terraform(args, dir, data);
      if (r.code !== 0) throw new Error(`terraform ${args[0]} failed:\n${r.stdout}\n${r.stderr}`);
    }
    const out = terraform(["output", "-json", "-no-color", "fleet"], dir, data);
    if (out.code !== 0) throw new Error(`terraform output failed:\n${out.stderr}`);
    return JSON.parse(out.stdout) as FleetOutput;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
