import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ALLOCATOR_ENV, allocatorEnv } from "./allocator-env.ts";

test("allocator env - `bun run crawl` starts the crawler with every variable of ALLOCATOR_ENV, keeping an operator's own value", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
  const script = pkg.scripts["crawl"]!;
  for (const [name, value] of Object.entries(ALLOCATOR_ENV)) expect(script).toContain(`${name}=\${${name}:-${value}} `);
  expect(script.endsWith("bun embedded/main.ts")).toBe(true);
});

test("allocator env - the script's shell gives the crawler the default, or the operator's value", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
  // The script's assignments, run by sh in front of a command that prints what it was given.
  const assignments = pkg.scripts["crawl"]!.replace(/ bun embedded\/main\.ts$/, "");
  const names = Object.keys(ALLOCATOR_ENV);
  const shown = (env: Record<string, string>) =>
    Bun.spawnSync(["sh", "-c", `${assignments} env`], { env: { PATH: process.env["PATH"] ?? "", ...env } })
      .stdout.toString()
      .split("\n")
      .filter((l) => names.some((n) => l.startsWith(`${n}=`)))
      .sort();
  expect(shown({})).toEqual(
    Object.entries(ALLOCATOR_ENV)
      .map(([n, v]) => `${n}=${v}`)
      .sort(),
  );
  // The operator's value of one variable is kept; the others still get their defaults.
  expect(shown({ MIMALLOC_PURGE_DELAY: "25" })).toEqual(["BUN_JSC_heapGrowthMaxIncrease=1", "MIMALLOC_PURGE_DELAY=25"]);
  expect(shown({ BUN_JSC_heapGrowthMaxIncrease: "2" })).toEqual(["BUN_JSC_heapGrowthMaxIncrease=2", "MIMALLOC_PURGE_DELAY=-1"]);
});

test("allocator env - a launcher adds only what its own environment does not set", () => {
  expect(allocatorEnv({})).toEqual({ ...ALLOCATOR_ENV });
  expect(allocatorEnv({ MIMALLOC_PURGE_DELAY: "10" })).toEqual({ BUN_JSC_heapGrowthMaxIncrease: "1" });
  expect(allocatorEnv({ MIMALLOC_PURGE_DELAY: "10", BUN_JSC_heapGrowthMaxIncrease: "2" })).toEqual({});
});

test("allocator env - the Bun in use knows every JavaScriptCore option of ALLOCATOR_ENV and runs with its value", () => {
  // JSC lists the options that differ from its defaults; an option a Bun upgrade renamed would stop Bun from starting.
  const jsc = Object.entries(ALLOCATOR_ENV).filter(([name]) => name.startsWith("BUN_JSC_"));
  expect(jsc.length).toBeGreaterThan(0);
  const run = Bun.spawnSync([process.execPath, "-e", "0"], {
    env: { PATH: process.env["PATH"] ?? "", ...ALLOCATOR_ENV, BUN_JSC_dumpOptions: "1" },
  });
  const out = run.stdout.toString() + run.stderr.toString();
  expect(run.exitCode).toBe(0);
  for (const [name, value] of jsc)
    expect(out).toMatch(new RegExp(`^\\s*${name.slice("BUN_JSC_".length)}=${value}(\\.0*)? \\(default`, "m"));
});
