/**
 * `crawlctl seed add --file` against a real coordinator gRPC service (over the in-memory bus): a file far
 * larger than one request is streamed in batches, every good line is accepted, every bad one is named by
 * its line, and progress is reported as it goes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus } from "../../adapters/memory/index.ts";
import { TokenSet } from "../../core/auth/index.ts";
import { startGrpcServer, type RunningGrpcServer } from "../../adapters/grpc/index.ts";
import { coordinatorGrpcService } from "../../coordinator/grpc-service.ts";
import { SeedPublisher } from "../../coordinator/seeds.ts";
import { harness, P, type Harness } from "../../coordinator/test-support.ts";
import type { CliIo } from "../io.ts";
import { seedAddCommand } from "./seed-add.ts";

const TOKEN = "seed-add-token-for-tests-0001";
const dir = mkdtempSync(join(tmpdir(), "seed-add-"));
let h: Harness;
let server: RunningGrpcServer;

beforeAll(async () => {
  h = await harness();
  h.services.seeds = new SeedPublisher({ bus: h.bus, rules: h.rules, partitions: P, maxUrls: 10_000 });
  server = await startGrpcServer([coordinatorGrpcService(h.services, { tokens: new TokenSet([TOKEN]) })], "127.0.0.1:0");
});

afterAll(async () => {
  await server.close(100);
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function io(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => void stdout.push(t), err: (t) => void stderr.push(t), readText: async () => "" };
}

const env = () => ({ CRAWLCTL_COORDINATOR: server.address, CRAWLCTL_TOKEN: TOKEN });

test("seed add --file streams 250,000 lines in requests the coordinator takes, names bad lines, shows progress", async () => {
  const path = join(dir, "sites.txt");
  const lines: string[] = ["# a top-sites list"];
  for (let i = 0; i < 250_000; i++)
    lines.push(i === 1_234 ? "not a url" : i === 200_000 ? "ftp://files.example/" : `https://site${i}.example/`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  const seen = new Set<string>();
  for (let p = 0; p < P; p++)
    h.bus.consumeUrls("us", p, async (d) => {
      for (const u of d.data) seen.add(u.url);
      await d.ack();
    });
  const out = io();
  const code = await seedAddCommand(env())(["--file", path, "https://argument.example/"], out);
  expect(code).toBe(0);
  expect(out.stdout.at(-1)).toBe("249999 seed(s) accepted, 2 rejected\n");
  expect(out.stdout.filter((l) => l.includes("REJECT"))).toEqual([
    `  REJECT not a url: unparseable (${path}:1236)\n`,
    `  REJECT ftp://files.example/: unsupported-scheme: ftp (${path}:200002)\n`,
  ]);
  // The share is of the bytes read so far (reads run ahead of the lines a little).
  expect(out.stderr).toHaveLength(2);
  expect(out.stderr[0]).toMatch(new RegExp(`^seeded 100,000 lines of ${path} \\(\\d+ % of the file\\): 99,999 accepted\n$`));
  expect(out.stderr[1]).toMatch(new RegExp(`^seeded 200,000 lines of ${path} \\(\\d+ % of the file\\): 199,999 accepted\n$`));
  for (let i = 0; i < 200 && seen.size < 249_999; i++) await new Promise((r) => setTimeout(r, 10));
  expect(seen.size).toBe(249_999);
  expect(seen.has("https://site249999.example/")).toBe(true);
  expect(seen.has("https://argument.example/")).toBe(true);
}, 60_000);

test("seed add --json keeps the rejections with their lines and counts them", async () => {
  const path = join(dir, "few.txt");
  writeFileSync(path, "https://ok.example/\nhttp://127.0.0.1/\n");
  const out = io();
  expect(await seedAddCommand(env())(["--file", path, "--json"], out)).toBe(0);
  expect(JSON.parse(out.stdout.join(""))).toEqual({
    accepted: 1,
    rejected: [{ url: "http://127.0.0.1/", reason: expect.stringMatching(/^refused-address: loopback/), line: `${path}:2` }],
    rejectedTotal: 1,
  });
});

test("seed add --feeds sends its lines as feeds, beside page seeds", async () => {
  const path = join(dir, "feeds.txt");
  writeFileSync(path, "# feeds\nhttps://feeds.example/rss.xml\nnot a url\n");
  // A bus of its own: the consumers of the test above would take these seeds.
  const bus = new MemoryBus();
  await bus.ensureRegion("us", P);
  const before = h.services.seeds;
  h.services.seeds = new SeedPublisher({ bus, rules: h.rules, partitions: P, maxUrls: 10_000 });
  const got: Array<{ url: string; feed: boolean }> = [];
  for (let p = 0; p < P; p++)
    bus.consumeUrls("us", p, async (d) => {
      for (const u of d.data) got.push({ url: u.url, feed: u.sitemap?.feed === true });
      await d.ack();
    });
  const out = io();
  expect(await seedAddCommand(env())(["--feeds", path, "https://feeds.example/"], out)).toBe(0);
  expect(out.stdout).toEqual([`  REJECT not a url: unparseable (${path}:3)\n`, "2 seed(s) accepted, 1 rejected\n"]);
  for (let i = 0; i < 200 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(got.sort((a, b) => a.url.localeCompare(b.url))).toEqual([
    { url: "https://feeds.example/", feed: false },
    { url: "https://feeds.example/rss.xml", feed: true },
  ]);
  h.services.seeds = before;
  await bus.close();
});

test("a seeds file that cannot be read is a usage error naming it, and nothing is sent", async () => {
  const out = io();
  await expect(seedAddCommand(env())(["--file", join(dir, "missing.txt")], out)).rejects.toThrow(
    `cannot read ${join(dir, "missing.txt")}: ENOENT`,
  );
  expect(out.stdout).toEqual([]);
});
