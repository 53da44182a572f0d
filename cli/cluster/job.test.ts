/**
 * `crawlctl job ...` against a real coordinator gRPC service (over the in-memory cluster state and bus):
 * the whole life of a job, and bad input refused by the coordinator with the admin API's messages.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TokenSet } from "../../core/auth/index.ts";
import { startGrpcServer, type RunningGrpcServer } from "../../adapters/grpc/index.ts";
import { coordinatorGrpcService } from "../../coordinator/grpc-service.ts";
import { adminApp } from "../../coordinator/admin-api.ts";
import { harness, nodeRecord, type Harness } from "../../coordinator/test-support.ts";
import { partitionOf } from "../../core/ring/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import type { CliIo } from "../io.ts";
import { commands } from "../commands/index.ts";
import { UsageError } from "../io.ts";
import { P } from "../../coordinator/test-support.ts";

const TOKEN = "job-cli-token-for-tests-0001";
let h: Harness;
let server: RunningGrpcServer;

beforeAll(async () => {
  h = await harness();
  server = await startGrpcServer([coordinatorGrpcService(h.services, { tokens: new TokenSet([TOKEN]) })], "127.0.0.1:0");
});

afterAll(async () => {
  await server.close(100);
  await h.close();
});

async function crawlctl(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = { out: (t) => void stdout.push(t), err: (t) => void stderr.push(t), readText: async () => "" };
  // As crawlctl's main runs a command: a usage error exits 2.
  const command = commands.find((c) => c.words.every((w, i) => argv[i] === w))!;
  const code = await command
    .run(argv.slice(command.words.length), io, { CRAWLCTL_COORDINATOR: server.address, CRAWLCTL_TOKEN: TOKEN })
    .catch((e) => {
      if (e instanceof UsageError) return 2;
      throw e;
    });
  return { code, out: stdout.join(""), err: stderr.join("") };
}

test("crawlctl job: create with settings and seeds, list, show, pause, resume, seed, cancel", async () => {
  const got: DiscoveredUrl[] = [];
  h.bus.consumeUrls("us", partitionOf("example.com", P), async (d) => {
    for (const u of d.data) got.push(u);
    await d.ack();
  });
  const created = await crawlctl(
    "job",
    "create",
    "--max-pages",
    "50",
    "--weight",
    "2",
    "--scope",
    "host",
    "--allow-hosts",
    "example.com",
    "--max-duration",
    "1h",
    "news",
    "https://example.com/",
    "ftp://x.example/",
  );
  expect(created).toMatchObject({ code: 0, out: expect.stringContaining("job news created (number 1), 1 seed(s) accepted, 1 rejected") });
  const shown = JSON.parse((await crawlctl("job", "show", "news", "--json")).out);
  expect(shown).toMatchObject({
    id: "news",
    number: 1,
    state: "running",
    reason: null,
    maxPages: 50,
    weight: 2,
    maxDuration: "1h",
    scope: "host",
    allowHosts: ["example.com"],
  });
  // The same job as the admin API answers it: gRPC carries every field.
  const viaHttp = await (
    await adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 10 }).request("/v1/jobs/news", {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json();
  expect(shown).toEqual(viaHttp);

  await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now, jobs: { "1": { pages: 7, errors: 2, queued: 30 } } }));
  const list = await crawlctl("job", "list");
  expect(list.code).toBe(0);
  expect(list.out).toMatch(/default\s+running\s+0\s+0\s+0/);
  expect(list.out).toMatch(/news\s+running\s+7\s+30\s+2\s+50\s+2/);

  expect((await crawlctl("job", "pause", "news")).out).toMatch(/state\s+paused/);
  expect((await crawlctl("job", "resume", "news")).out).toMatch(/state\s+running/);
  expect((await crawlctl("job", "seed", "news", "https://example.com/more")).out).toBe("1 seed(s) accepted into job news\n");
  const cancelled = await crawlctl("job", "cancel", "news", "--json");
  expect(JSON.parse(cancelled.out)).toMatchObject({ state: "cancelled", reason: "cancelled" });
  for (let i = 0; i < 100 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  expect(got.map((u) => [u.url, u.job])).toEqual([
    ["https://example.com/", 1],
    ["https://example.com/more", 1],
  ]);
});

test("crawlctl job create|seed --feeds FILE: the file's feed URLs go out as the job's feeds", async () => {
  const got: DiscoveredUrl[] = [];
  h.bus.consumeUrls("us", partitionOf("feeds.example", P), async (d) => {
    for (const u of d.data) got.push(u);
    await d.ack();
  });
  const dir = mkdtempSync(join(tmpdir(), "job-feeds-"));
  try {
    const first = join(dir, "first.txt");
    const more = join(dir, "more.txt");
    writeFileSync(first, "# the news\nhttps://feeds.example/rss.xml\n\n");
    writeFileSync(more, "https://feeds.example/atom.xml\n");
    const created = await crawlctl("job", "create", "--feeds", first, "blogs", "https://feeds.example/");
    expect([created.code, created.out]).toEqual([0, expect.stringMatching(/^job blogs created \(number \d+\), 2 seed\(s\) accepted\n$/)]);
    const number = JSON.parse((await crawlctl("job", "show", "blogs", "--json")).out).number as number;
    expect((await crawlctl("job", "seed", "blogs", "--feeds", more)).out).toBe("1 seed(s) accepted into job blogs\n");
    for (let i = 0; i < 100 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got.map((u) => [u.url, u.job, u.sitemap?.feed === true]).sort()).toEqual([
      ["https://feeds.example/", number, false],
      ["https://feeds.example/atom.xml", number, true],
      ["https://feeds.example/rss.xml", number, true],
    ]);
    // No seeds and no --feeds: a usage error; a missing file too, before anything is sent.
    expect((await crawlctl("job", "seed", "blogs")).code).toBe(2);
    expect((await crawlctl("job", "seed", "blogs", "--feeds", join(dir, "absent.txt"))).code).toBe(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("crawlctl job: bad input is refused by the coordinator with a clear message, and changes nothing", async () => {
  const before = (await crawlctl("job", "list", "--json")).out;
  const cases: Array<[string[], number, string]> = [
    [["job", "create", "Bad_Id"], 1, 'id: "Bad_Id" must be 1-40 characters of a-z, 0-9 and -'],
    [["job", "create", "--max-pages", "-3", "neg"], 1, "maxPages: must be between 0"],
    [["job", "create", "--weight", "5000", "heavy"], 1, "weight: must be between 1 and 1000"],
    [["job", "create", "--scope", "planet", "planet"], 1, "scope:"],
    [["job", "create", "--max-duration", "soon", "soon"], 1, "maxDuration:"],
    [["job", "show", "nope"], 1, "no job nope"],
    [["job", "pause", "nope"], 1, "no job nope"],
    [["job", "seed", "nope", "https://example.com/"], 1, "no job nope"],
    [["job", "resume", "news"], 1, "job news has ended"],
  ];
  for (const [argv, code, message] of cases) {
    const r = await crawlctl(...argv);
    expect([argv.join(" "), r.code, r.err]).toEqual([argv.join(" "), code, expect.stringContaining(message)]);
  }
  expect((await crawlctl("job", "create", "--max-pages", "lots", "x")).code).toBe(2);
  expect((await crawlctl("job", "list", "--json")).out).toBe(before);
});
