/**
 * Deno for the tests that run the fetch node on it (tests/runtime, and `cluster up`, which starts one fetch
 * node on Deno). CI installs Deno: a missing Deno fails those tests, it never changes or skips them.
 */
import { spawnSync } from "node:child_process";

/** Throws, saying how to install it, unless `deno` runs here. */
export function requireDeno(): void {
  if (spawnSync("deno", ["--version"], { stdio: "ignore" }).status !== 0) {
    throw new Error("`deno` is not on PATH: these tests run a fetch node on Deno (install it: npm install -g deno@2.9.6, or run .ci/run)");
  }
}
