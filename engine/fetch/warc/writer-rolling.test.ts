/**
 * The writer's rolling by age and its upload mode (`finishedDir`): finished files and their own indexes
 * handed to the spool directory, and names that never repeat even after finished files were deleted.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INDEX_FILE, WarcWriter, readRecordAt, type CapturedExchange } from "./index.ts";

const enc = new TextEncoder();
const exchange = (url: string): CapturedExchange => ({
  url,
  fetchedAt: Date.UTC(2024, 0, 2, 3, 4, 5),
  httpVersion: "1.1",
  requestHeaders: { "User-Agent": "test" },
  status: 200,
  responseHeaders: { "Content-Type": "text/html" },
  body: enc.encode(`<p>${url}</p>`),
});

let dir: string;
let finished: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-roll-"));
  finished = join(dir, "finished");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const list = async (d: string) => (await readdir(d).catch(() => [] as string[])).filter((n) => !n.startsWith(".")).sort();

test("warc rolling - a file is finished at its age on the next write (injected clock)", async () => {
  let now = Date.UTC(2024, 0, 2, 3, 4, 6);
  const w = await WarcWriter.open({ dir, prefix: "age", clock: () => now, maxFileAgeMs: 60_000 });
  const a = await w.write(exchange("https://example.com/a"));
  now += 59_999;
  const b = await w.write(exchange("https://example.com/b"));
  now += 1;
  const c = await w.write(exchange("https://example.com/c"));
  await w.close();
  expect(a.filename).toBe(b.filename);
  expect(c.filename).not.toBe(a.filename);
});

test("warc rolling - a quiet writer finishes its file when the age timer fires, without another write", async () => {
  const w = await WarcWriter.open({ dir, prefix: "quiet", maxFileAgeMs: 200, finishedDir: finished });
  const placed = await w.write(exchange("https://example.com/only"));
  expect(await list(dir)).toEqual(expect.arrayContaining([placed.filename]));
  // The timer moves the finished pair to the spool directory.
  const deadline = Date.now() + 10_000;
  while (!(await list(finished)).includes(placed.filename) && Date.now() < deadline) await Bun.sleep(20);
  expect(await list(finished)).toEqual([placed.filename.replace(".warc.gz", ".cdxj"), placed.filename].sort());
  expect((await list(dir)).filter((n) => n !== "finished")).toEqual([]);
  await w.close();
  expect(await list(finished)).toHaveLength(2);
});

test("warc rolling - upload mode: each file has its own index, and finished pairs move to finishedDir", async () => {
  const w = await WarcWriter.open({ dir, prefix: "up", maxFileBytes: 1_200, finishedDir: finished });
  const placed = [];
  for (let i = 0; i < 6; i++) placed.push(await w.write(exchange(`https://example.com/p${i}`)));
  const open = w.currentFile!;
  // Everything but the file being written is finished; no shared index in upload mode.
  expect(await list(dir)).toEqual(["finished", open, open.replace(".warc.gz", ".cdxj")].sort());
  await w.close();
  expect(await list(dir)).toEqual(["finished"]);
  const files = await list(finished);
  expect(files).not.toContain(INDEX_FILE);
  const warcs = files.filter((f) => f.endsWith(".warc.gz"));
  expect(warcs.length).toBeGreaterThan(1);
  expect(files.filter((f) => f.endsWith(".cdxj"))).toEqual(warcs.map((f) => f.replace(".warc.gz", ".cdxj")));
  // Each index lists exactly its own file's responses, and each line points at the right record.
  for (const warc of warcs) {
    const lines = (await readFile(join(finished, warc.replace(".warc.gz", ".cdxj")), "utf8")).trimEnd().split("\n");
    const mine = placed.filter((p) => p.filename === warc);
    expect(lines).toHaveLength(mine.length);
    for (const line of lines) {
      const f = JSON.parse(line.slice(line.indexOf("{"))) as { filename: string; offset: string; length: string; url: string };
      expect(f.filename).toBe(warc);
      expect((await readRecordAt(join(finished, warc), Number(f.offset), Number(f.length))).url).toBe(f.url);
    }
  }
});

test("warc rolling - names never repeat, even after every finished file was uploaded and deleted", async () => {
  const clock = () => Date.UTC(2024, 0, 2, 3, 4, 6); // the same second for every file
  const w1 = await WarcWriter.open({ dir, prefix: "seq", clock, finishedDir: finished });
  const first = await w1.write(exchange("https://example.com/1"));
  await w1.close();
  for (const f of await list(finished)) await unlink(join(finished, f));
  const w2 = await WarcWriter.open({ dir, prefix: "seq", clock, finishedDir: finished });
  const second = await w2.write(exchange("https://example.com/2"));
  await w2.close();
  expect(first.filename).toBe("seq-20240102030406-00001.warc.gz");
  expect(second.filename).toBe("seq-20240102030406-00002.warc.gz");
});
