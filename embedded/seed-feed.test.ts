import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DiscoveredUrl } from "../core/model/index.ts";
import type { Log } from "../core/ports/index.ts";
import { resolvePolicy } from "../core/config/index.ts";
import { SeedFeed } from "./seed-feed.ts";

const dir = mkdtempSync(join(tmpdir(), "seed-feed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const log: Log & { lines: string[] } = {
    lines,
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
    child: () => log,
  };
  return log;
}

const policy = resolvePolicy({}, {});

test("a file of a million seeds is admitted in bounded batches, in order, with progress", async () => {
  const path = join(dir, "top-1m.txt");
  const parts: string[] = ["# rank,site"];
  for (let i = 0; i < 1_000_000; i++) parts.push(`https://site-${i}.test/`);
  writeFileSync(path, parts.join("\n"));
  let clock = 0;
  let largest = 0;
  let seen = 0;
  let inOrder = true;
  const log = recordingLog();
  const feed = new SeedFeed({
    urls: [],
    file: path,
    policy,
    log,
    now: () => (clock += 1),
    add: async (batch: DiscoveredUrl[]) => {
      largest = Math.max(largest, batch.length);
      for (const u of batch) if (u.url !== `https://site-${seen++}.test/` || !u.isSeed || u.depth !== 0) inOrder = false;
      return batch.length;
    },
  });
  const totals = await feed.run();
  expect(totals).toMatchObject({ offered: 1_000_000, added: 1_000_000, rejected: 0, lines: 1_000_001 });
  expect(largest).toBe(10_000);
  expect(inOrder).toBe(true);
  expect(log.lines.some((l) => /^info seeded [\d,]+ lines of .*top-1m\.txt \(\d+ % of the file\)/.test(l))).toBe(true);
  expect(log.lines.at(-1)).toBe(`info seeded 1,000,001 lines of ${path}: 1,000,000 new, 0 rejected`);
  // About 2 s on an idle 2-core box; a million URLs normalized and checked is CPU-bound work, and under a
  // loaded suite it took over the default 5 s. A bound, not a speed check (bench/ measures speed).
}, 60_000);

test("bad lines are reported with their line numbers and skipped; the rest is admitted", async () => {
  const path = join(dir, "bad.txt");
  writeFileSync(
    path,
    ["https://a.test/", "not a url at all", "", "ftp://b.test/x", `https://${"x".repeat(70_000)}.test/`, "https://c.test/"].join("\n"),
  );
  const log = recordingLog();
  const admitted: string[] = [];
  const feed = new SeedFeed({
    urls: ["https://arg.test/"],
    file: path,
    policy,
    log,
    add: async (batch) => {
      for (const u of batch) admitted.push(u.url);
      return batch.length;
    },
  });
  const totals = await feed.run();
  expect(admitted).toEqual(["https://arg.test/", "https://a.test/", "https://c.test/"]);
  expect(totals).toMatchObject({ offered: 3, rejected: 3 });
  const warnings = log.lines.filter((l) => l.startsWith("warn"));
  expect(warnings).toHaveLength(3);
  expect(warnings[0]).toStartWith(`warn seed rejected (${path}:2): not a url at all: `);
  expect(warnings[1]).toStartWith(`warn seed rejected (${path}:4): ftp://b.test/x: `);
  expect(warnings[2]).toBe(`warn seed rejected (${path}:5): line too long to be a URL (over 65,536 characters)`);
});

test("seeds the address policy refuses are offered (the frontier counts them) and said so", async () => {
  const log = recordingLog();
  const feed = new SeedFeed({ urls: ["http://127.0.0.1/", "https://ok.test/"], policy, log, add: async (b) => b.length });
  const totals = await feed.run();
  expect(totals).toMatchObject({ offered: 2, refused: 1, rejected: 0 });
  expect(log.lines.filter((l) => l.startsWith("warn"))[0]).toContain(
    "seed rejected (argument): http://127.0.0.1/: refused-address: loopback",
  );
});

test("past a hundred rejections the rest are counted, not each logged", async () => {
  const log = recordingLog();
  const urls = Array.from({ length: 250 }, (_, i) => `nonsense ${i}`);
  const totals = await new SeedFeed({ urls, policy, log, add: async (b) => b.length }).run();
  expect(totals.rejected).toBe(250);
  expect(log.lines.filter((l) => l.startsWith("warn seed rejected"))).toHaveLength(100);
  expect(log.lines).toContain("warn more seeds rejected: only the first 100 are shown; the total is reported at the end");
});

test("the first batch is announced before the file is done, so the crawl starts early", async () => {
  const path = join(dir, "three-batches.txt");
  writeFileSync(path, Array.from({ length: 25 }, (_, i) => `https://s${i}.test/`).join("\n"));
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let batches = 0;
  const feed = new SeedFeed({
    urls: [],
    file: path,
    policy,
    log: recordingLog(),
    batchSize: 10,
    add: async (b) => {
      batches++;
      if (batches === 2) await gate;
      return b.length;
    },
  });
  const run = feed.run();
  await feed.firstBatch;
  expect(feed.done).toBe(false);
  release();
  expect((await run).added).toBe(25);
  expect(feed.done).toBe(true);
});

test("a seeds file that cannot be read rejects the run with the file's error", async () => {
  const feed = new SeedFeed({ urls: [], file: join(dir, "missing.txt"), policy, log: recordingLog(), add: async (b) => b.length });
  await expect(feed.run()).rejects.toThrow(`cannot read ${join(dir, "missing.txt")}: ENOENT`);
  expect(feed.done).toBe(true);
});
