/**
 * WET files: the text of each page kept beside its WARC file as WARC 1.1 conversion records. Read twice:
 * with the project's reader (warcio's parser) and byte-wise against RFC 1952 and the WARC 1.1 grammar
 * (tests/support/warc-bytes.ts).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipMemberAt, gzipMembers, parseWarcRecord } from "../../../tests/support/warc-bytes.ts";
import { readRecordAt, readWarc, WarcWriter, type CapturedExchange, type WarcRecordView } from "./index.ts";

const enc = new TextEncoder();
const TEXT = "Hello world. Ünïcode too — and a second sentence.";

function page(url: string, text?: CapturedExchange["text"], type = "text/html"): CapturedExchange {
  return {
    url,
    fetchedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    httpVersion: "1.1",
    requestHeaders: { "User-Agent": "crawler-test" },
    status: 200,
    responseHeaders: { "Content-Type": type },
    body: enc.encode(`<html><title>T</title><p>${TEXT}</p></html>`),
    ...(text ? { text } : {}),
  };
}

async function readAll(path: string): Promise<WarcRecordView[]> {
  const out: WarcRecordView[] = [];
  for await (const r of readWarc(path)) out.push(r);
  return out;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wet-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("wet - each page with text gets one conversion record naming its response record; pages without text get none", async () => {
  const w = await WarcWriter.open({ dir, prefix: "t", wet: true });
  const a = await w.write(page("https://a.test/one", { title: "One", text: TEXT }));
  const img = await w.write(page("https://a.test/pic.png", undefined, "image/png"));
  const b = await w.write(page("https://a.test/two", { text: "only text" }));
  await w.close();

  const names = (await readdir(dir)).sort();
  const warcName = names.find((n) => n.endsWith(".warc.gz"))!;
  expect(names).toContain(warcName.replace(/\.warc\.gz$/, ".warc.wet.gz"));
  expect(a.text?.file).toBe(warcName.replace(/\.warc\.gz$/, ".warc.wet.gz"));
  expect(img.text).toBeUndefined();
  expect(b.text).toBeDefined();

  const warcRecords = await readAll(join(dir, warcName));
  const responseIds = new Map(warcRecords.filter((r) => r.type === "response").map((r) => [r.url, r.warcHeaders["WARC-Record-ID"]]));
  const wet = await readAll(join(dir, a.text!.file));
  expect(wet.map((r) => r.type)).toEqual(["warcinfo", "conversion", "conversion"]);
  expect(wet.slice(1).map((r) => r.url)).toEqual(["https://a.test/one", "https://a.test/two"]);
  for (const r of wet.slice(1)) {
    expect(r.warcHeaders["WARC-Refers-To"]).toBe(responseIds.get(r.url)!);
    expect(r.warcHeaders["Content-Type"]).toBe("text/plain");
    expect(r.warcHeaders["WARC-Warcinfo-ID"]).toBe(wet[0]!.warcHeaders["WARC-Record-ID"]!);
  }
  expect(new TextDecoder().decode(wet[1]!.payload)).toBe(`One\n\n${TEXT}`);
  expect(new TextDecoder().decode(wet[2]!.payload)).toBe("only text");
  // The conversion's date is its response's: both tell the same capture.
  expect(wet[1]!.warcHeaders["WARC-Date"]).toBe(warcRecords.find((r) => r.url === "https://a.test/one")!.warcHeaders["WARC-Date"]!);
});

test("wet - the file is whole gzip members, one per record, and each record follows the WARC 1.1 grammar byte for byte", async () => {
  const w = await WarcWriter.open({ dir, prefix: "t", wet: true });
  const placed = [];
  for (let i = 0; i < 5; i++) placed.push(await w.write(page(`https://a.test/${i}`, { title: `Page ${i}`, text: `${TEXT} ${i}` })));
  await w.close();
  const bytes = new Uint8Array(await readFile(join(dir, placed[0]!.text!.file)));
  const members = gzipMembers(bytes);
  expect(members).toHaveLength(6); // warcinfo + 5 conversions
  const records = members.map((m) => parseWarcRecord(m.data));
  expect(records[0]!.get("WARC-Type")).toBe("warcinfo");
  expect(records[0]!.get("WARC-Filename")).toBe(placed[0]!.text!.file);
  for (const [i, r] of records.slice(1).entries()) {
    expect(r.get("WARC-Type")).toBe("conversion");
    expect(r.get("Content-Type")).toBe("text/plain");
    expect(r.get("WARC-Target-URI")).toBe(`https://a.test/${i}`);
    expect(r.get("WARC-Refers-To")).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
    expect(new TextDecoder().decode(r.block)).toBe(`Page ${i}\n\n${TEXT} ${i}`);
    expect(r.get("WARC-Block-Digest")).toBe(`sha256:${createHash("sha256").update(r.block).digest("hex")}`);
    // The location the write returned is exactly this member.
    expect({ offset: members[i + 1]!.offset, length: members[i + 1]!.length }).toEqual({
      offset: placed[i]!.text!.offset,
      length: placed[i]!.text!.length,
    });
  }
  // And the response record's location, read with one seek, is that page's response.
  const warcBytes = new Uint8Array(await readFile(join(dir, placed[3]!.warc.file)));
  const response = parseWarcRecord(gzipMemberAt(warcBytes, placed[3]!.warc.offset).data);
  expect(gzipMemberAt(warcBytes, placed[3]!.warc.offset).length).toBe(placed[3]!.warc.length);
  expect(response.get("WARC-Type")).toBe("response");
  expect(response.get("WARC-Target-URI")).toBe("https://a.test/3");
  const conversion = await readRecordAt(join(dir, placed[3]!.text!.file), placed[3]!.text!.offset, placed[3]!.text!.length);
  expect(conversion.warcHeaders["WARC-Refers-To"]).toBe(response.get("WARC-Record-ID")!);
});

test("wet - without wet no WET file is written, even for pages with text", async () => {
  const w = await WarcWriter.open({ dir, prefix: "t" });
  const placed = await w.write(page("https://a.test/one", { title: "One", text: TEXT }));
  await w.close();
  expect(placed.text).toBeUndefined();
  expect((await readdir(dir)).filter((n) => n.includes(".wet"))).toEqual([]);
});

test("wet - the WET file rolls and moves with its WARC file, and uploading names both by their object URLs", async () => {
  const finished = join(dir, "finished");
  const w = await WarcWriter.open({
    dir,
    prefix: "t",
    wet: true,
    maxFileBytes: 1,
    finishedDir: finished,
    objectLocation: "s3://bucket/crawl/",
  });
  const first = await w.write(page("https://a.test/1", { text: "first" }));
  const second = await w.write(page("https://a.test/2", { text: "second" }));
  await w.close();
  const moved = (await readdir(finished)).sort();
  const warcs = moved.filter((n) => n.endsWith(".warc.gz"));
  expect(warcs).toHaveLength(2);
  for (const warc of warcs) expect(moved).toContain(warc.replace(/\.warc\.gz$/, ".warc.wet.gz"));
  expect((await readdir(dir)).filter((n) => n.includes(".warc"))).toEqual([]);
  expect(first.warc.file).toBe(`s3://bucket/crawl/${warcs[0]}`);
  expect(first.text?.file).toBe(`s3://bucket/crawl/${warcs[0]!.replace(/\.warc\.gz$/, ".warc.wet.gz")}`);
  expect(second.warc.file).toBe(`s3://bucket/crawl/${warcs[1]}`);
  // CDXJ keeps the bare file name, as replay tools expect.
  expect(first.filename).toBe(warcs[0]!);
});

test("wet - a WET file that cannot be created takes its new WARC file with it: the next name is used, no WARC is left without its WET", async () => {
  const w = await WarcWriter.open({ dir, prefix: "t", wet: true, clock: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
  // A leftover WET file holds the name the first WARC file would get.
  await writeFile(join(dir, "t-20260102030405-00001.warc.wet.gz"), "leftover");
  const placed = await w.write(page("https://a.test/one", { text: "one" }));
  await w.close();
  expect(placed.filename).toBe("t-20260102030405-00002.warc.gz");
  expect(placed.text?.file).toBe("t-20260102030405-00002.warc.wet.gz");
  expect((await readdir(dir)).filter((n) => n.endsWith(".warc.gz")).sort()).toEqual(["t-20260102030405-00002.warc.gz"]);
});
