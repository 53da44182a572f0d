/**
 * The JobRegistry contract (core/ports/job-registry.ts), one suite against the cluster's in-process state
 * (MemoryClusterState; the NATS KV one runs the same rules in cluster-state.contract.test.ts) and `crawl`'s
 * SqliteJobRegistry: a record is created once, changed only over its revision, listed and watched in
 * order; the SQLite one keeps its records across a reopen of the same file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRecord } from "../../core/jobs/index.ts";
import type { JobRegistry } from "../../core/ports/index.ts";
import { MemoryClusterState } from "../../adapters/memory/index.ts";
import { SqliteJobRegistry } from "../../adapters/sqlite/index.ts";

const dir = mkdtempSync(join(tmpdir(), "job-registry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function job(id: string, number: number, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id,
    number,
    maxPages: 10,
    maxDurationMs: 0,
    weight: 1,
    state: "running",
    createdAt: 1,
    startedAt: 1,
    roots: ["a.test"],
    ...over,
  };
}

function contract(name: string, fresh: () => JobRegistry): void {
  describe(`${name} - JobRegistry contract`, () => {
    test(`${name} - a job is created once, changed over its revision only, listed, and watched in order`, async () => {
      const reg = fresh();
      expect(await reg.getJob("news")).toBeUndefined();
      expect(await reg.listJobs()).toEqual([]);
      const r1 = await reg.casJob(job("news", 1), 0);
      expect(r1).toBeGreaterThan(0);
      expect(await reg.casJob(job("news", 9), 0)).toBeUndefined();
      const heard: string[] = [];
      const stop = reg.watchJobs((j) => heard.push(`${j.id}:${j.state}`));
      const r2 = await reg.casJob(job("news", 1, { state: "paused" }), r1!);
      expect(r2).toBeGreaterThan(r1!);
      expect(await reg.casJob(job("news", 1, { state: "cancelled" }), r1!)).toBeUndefined();
      await reg.casJob(job("blogs", 2), 0);
      expect(await reg.getJob("news")).toEqual({ job: job("news", 1, { state: "paused" }), revision: r2! });
      expect((await reg.listJobs()).map((j) => `${j.id}:${j.number}:${j.state}`).sort()).toEqual(["blogs:2:running", "news:1:paused"]);
      for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
      stop();
      await reg.casJob(job("news", 1, { state: "running" }), r2!);
      await new Promise((r) => setTimeout(r, 30));
      expect(heard).toEqual(["news:running", "news:paused", "blogs:running"]);
    });
  });
}

contract("MemoryClusterState", () => new MemoryClusterState());
contract("SqliteJobRegistry", () => SqliteJobRegistry.open(join(dir, `jobs-${++files}.sqlite`)));

test("SqliteJobRegistry - records and revisions survive a reopen of the same file", async () => {
  const path = join(dir, "reopen.sqlite");
  const first = SqliteJobRegistry.open(path);
  const rev = await first.casJob(job("news", 1, { state: "cancelled", reason: "cancelled", endedAt: 5 }), 0);
  first.close();
  const again = SqliteJobRegistry.open(path);
  expect(await again.getJob("news")).toEqual({
    job: job("news", 1, { state: "cancelled", reason: "cancelled", endedAt: 5 }),
    revision: rev!,
  });
  expect(await again.casJob(job("news", 1), 0)).toBeUndefined();
  again.close();
});
