/**
 * Recovery of what a crash leaves in the WARC directory: torn records cut off at the last complete gzip
 * member, whole records kept, files moved to the spool with their indexes under unchanged names. The
 * torn files are made the way a kill makes them: a real file from the writer, cut inside its last pair of
 * records, with that pair's index line missing or torn.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INDEX_FILE, WarcWriter, readWarc, type CapturedExchange, type WriteResult } from "../warc/index.ts";
import { repairWarcTail, WarcSpool } from "./index.ts";

const exchange = (url: string, body: Uint8Array = new TextEncoder().encode(`<p>${url}</p>`)): CapturedExchange => ({
  url,
  fetchedAt: Date.UTC(2024, 0, 2, 3, 4, 5),
  httpVersion: "1.1",
  requestHeaders: { "User-Agent": "test" },
  status: 200,
  responseHeaders: { "Content-Type": "text/html" },
  body,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-spool-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `n` exchanges in upload mode into one file and leaves it in `dir` as a crash would (not finished). */
async function fileLeftOpen(n: number, body?: (i: number) => Uint8Array): Promise<{ name: string; placed: WriteResult[] }> {
  const scratch = join(dir, "scratch");
  const w = await WarcWriter.open({ dir: scratch, prefix: "node", finishedDir: join(scratch, "finished") });
  const placed: WriteResult[] = [];
  for (let i = 0; i < n; i++) placed.push(await w.write(exchange(`https://example.com/${i}`, body?.(i))));
  await w.close();
  const name = placed[0]!.filename;
  await rename(join(scratch, "finished", name), join(dir, name));
  await rename(join(scratch, "finished", name.replace(".warc.gz", ".cdxj")), join(dir, name.replace(".warc.gz", ".cdxj")));
  await rm(scratch, { recursive: true });
  return { name, placed };
}

async function urlsIn(path: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const r of readWarc(path)) if (r.type === "response") urls.push(r.url!);
  return urls;
}

async function dropLastIndexLine(indexPath: string, keepTornPart: boolean): Promise<void> {
  const lines = (await readFile(indexPath, "utf8")).split("\n").filter(Boolean);
  const last = lines.pop()!;
  await writeFile(indexPath, lines.map((l) => `${l}\n`).join("") + (keepTornPart ? last.slice(0, 20) : ""));
}

test("spool recovery - a kill inside the last response record: cut back to the end of the previous pair", async () => {
  const { name, placed } = await fileLeftOpen(4);
  const last = placed.at(-1)!;
  await truncate(join(dir, name), last.offset + Math.floor(last.length / 2));
  await dropLastIndexLine(join(dir, name.replace(".warc.gz", ".cdxj")), true);

  const report = await new WarcSpool(dir).recover();
  const finished = join(dir, "finished");
  expect(report.moved.sort()).toEqual([name, name.replace(".warc.gz", ".cdxj")].sort());
  expect((await stat(join(finished, name))).size).toBe(last.offset);
  expect(await urlsIn(join(finished, name))).toEqual(["https://example.com/0", "https://example.com/1", "https://example.com/2"]);
  const index = await readFile(join(finished, name.replace(".warc.gz", ".cdxj")), "utf8");
  expect(index.endsWith("\n")).toBe(true);
  expect(index.trimEnd().split("\n")).toHaveLength(3);
  expect(await readdir(dir)).toEqual(["finished"]);
});

test("spool recovery - a kill inside the request record after an indexed response keeps that response", async () => {
  const { name, placed } = await fileLeftOpen(3);
  const last = placed.at(-1)!;
  const size = (await stat(join(dir, name))).size;
  const requestStart = last.offset + last.length;
  await truncate(join(dir, name), requestStart + Math.floor((size - requestStart) / 2));

  await new WarcSpool(dir).recover();
  expect((await stat(join(dir, "finished", name))).size).toBe(requestStart);
  expect(await urlsIn(join(dir, "finished", name))).toEqual(["https://example.com/0", "https://example.com/1", "https://example.com/2"]);
});

test("spool recovery - a whole file and its index are moved unchanged; the shared index of a run without upload stays", async () => {
  const { name } = await fileLeftOpen(2);
  const before = await readFile(join(dir, name));
  await writeFile(join(dir, INDEX_FILE), "com,example)/ 20240102030405 {}\n");
  const report = await new WarcSpool(dir).recover();
  expect(report.droppedBytes).toBe(0);
  expect(await readFile(join(dir, "finished", name))).toEqual(before);
  expect((await readdir(dir)).sort()).toEqual(["finished", INDEX_FILE].sort());
});

test("spool recovery - without any index line the walk starts at the first byte and crosses members larger than its window", async () => {
  // Random bodies do not compress: each response member is ~3 MB, beyond the walk's first 1 MiB window.
  const { name, placed } = await fileLeftOpen(3, () => new Uint8Array(randomBytes(3 * 1024 * 1024)));
  const last = placed.at(-1)!;
  await truncate(join(dir, name), last.offset + 1000);
  await writeFile(join(dir, name.replace(".warc.gz", ".cdxj")), "");
  const { droppedBytes } = await new WarcSpool(dir).recover();
  expect(droppedBytes).toBe(1000);
  expect(await urlsIn(join(dir, "finished", name))).toEqual(["https://example.com/0", "https://example.com/1"]);
});

test("spool recovery - a finish interrupted between its two moves is completed; recovering twice changes nothing", async () => {
  const { name } = await fileLeftOpen(2);
  await mkdir(join(dir, "finished"));
  await rename(join(dir, name), join(dir, "finished", name));
  const spool = new WarcSpool(dir);
  expect((await spool.recover()).moved).toEqual([name.replace(".warc.gz", ".cdxj")]);
  expect((await spool.recover()).moved).toEqual([]);
  expect((await spool.list()).map((e) => e.name)).toEqual([name, name.replace(".warc.gz", ".cdxj")]);
});

test("spool recovery - a WARC file killed before its index was created gets an empty index, so it ships with one", async () => {
  // What the kill leaves: the new file with its warcinfo record and nothing else, no index beside it.
  const { name, placed } = await fileLeftOpen(1);
  await truncate(join(dir, name), placed[0]!.offset);
  await rm(join(dir, name.replace(".warc.gz", ".cdxj")));
  const report = await new WarcSpool(dir).recover();
  expect(report.moved).toEqual([name]);
  expect((await new WarcSpool(dir).list()).map((e) => [e.name, e.size > 0])).toEqual([
    [name, true],
    [name.replace(".warc.gz", ".cdxj"), false],
  ]);
});

test("spool recovery - garbage at the end (not a gzip member) is cut; a file of nothing but a torn header becomes empty", async () => {
  const { name, placed } = await fileLeftOpen(1);
  const size = (await stat(join(dir, name))).size;
  await appendFile(join(dir, name), Uint8Array.of(0x00, 0x01, 0x02));
  const cut = await repairWarcTail(join(dir, name), placed[0]!.offset);
  expect(cut).toEqual({ keptBytes: size, droppedBytes: 3 });
  await writeFile(join(dir, "x.warc.gz"), Uint8Array.of(0x1f, 0x8b, 0x08));
  expect(await repairWarcTail(join(dir, "x.warc.gz"))).toEqual({ keptBytes: 0, droppedBytes: 3 });
});

test("spool - lists each WARC before its own index and reports sizes", async () => {
  const finished = join(dir, "finished");
  await mkdir(finished);
  for (const [n, bytes] of [
    ["b.cdxj", 3],
    ["a.warc.gz", 10],
    ["b.warc.gz", 20],
    ["a.cdxj", 1],
    ["a-2.warc.gz", 5],
    ["notes.txt", 9],
  ] as const) {
    await writeFile(join(finished, n), new Uint8Array(bytes));
  }
  const entries = await new WarcSpool(dir).list();
  expect(entries.map((e) => [e.name, e.size])).toEqual([
    ["a.warc.gz", 10],
    ["a.cdxj", 1],
    ["a-2.warc.gz", 5],
    ["b.warc.gz", 20],
    ["b.cdxj", 3],
  ]);
});

test("spool - a media list travels with its WARC: recovered with it, listed after it and its index", async () => {
  const { name } = await fileLeftOpen(2);
  const media = name.replace(".warc.gz", ".media.jsonl");
  await writeFile(join(dir, media), '{"page":"https://example.com/0","url":"https://example.com/a.jpg"}\n');
  // The shared lists of a run without upload are not a file's companions: they stay.
  await writeFile(join(dir, "media.jsonl"), "");
  await writeFile(join(dir, INDEX_FILE), "");
  const spool = new WarcSpool(dir);
  const report = await spool.recover();
  expect(report.moved.sort()).toEqual([name, name.replace(".warc.gz", ".cdxj"), media].sort());
  expect((await readdir(dir)).filter((n) => n.endsWith(".jsonl") || n.endsWith(".cdxj")).sort()).toEqual([INDEX_FILE, "media.jsonl"]);
  expect((await spool.list()).map((e) => e.name)).toEqual([name, name.replace(".warc.gz", ".cdxj"), media]);
});

test("spool - a WET file left open is cut back to its last whole record, moved with its WARC and listed after it", async () => {
  const scratch = join(dir, "scratch");
  const w = await WarcWriter.open({ dir: scratch, prefix: "node", finishedDir: join(scratch, "finished"), wet: true });
  const placed: WriteResult[] = [];
  for (let i = 0; i < 3; i++) placed.push(await w.write({ ...exchange(`https://example.com/${i}`), text: { text: `page ${i}` } }));
  await w.close();
  const name = placed[0]!.filename;
  const wet = placed[0]!.text!.file;
  for (const n of [name, wet, name.replace(".warc.gz", ".cdxj")]) await rename(join(scratch, "finished", n), join(dir, n));
  await rm(scratch, { recursive: true });
  // A kill in the middle of the last text record.
  const last = placed[2]!.text!;
  await truncate(join(dir, wet), last.offset + Math.floor(last.length / 2));

  const spool = new WarcSpool(dir);
  const report = await spool.recover();
  expect(report.moved.sort()).toEqual([name, name.replace(".warc.gz", ".cdxj"), wet].sort());
  expect((await stat(join(dir, "finished", wet))).size).toBe(last.offset);
  const texts: string[] = [];
  for await (const r of readWarc(join(dir, "finished", wet))) if (r.type === "conversion") texts.push(new TextDecoder().decode(r.payload));
  expect(texts).toEqual(["page 0", "page 1"]);
  expect((await spool.list()).map((e) => e.name)).toEqual([name, name.replace(".warc.gz", ".cdxj"), wet]);
});
