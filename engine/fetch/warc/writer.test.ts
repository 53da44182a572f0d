import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { CDXIndexer } from "warcio";
import { INDEX_FILE, WarcWriter, readRecordAt, readWarc, type CapturedExchange, type WarcRecordView } from "./index.ts";

const FETCHED_AT = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const CLOCK = () => Date.UTC(2024, 0, 2, 3, 4, 6);
const enc = new TextEncoder();

function exchange(overrides: Partial<CapturedExchange> = {}): CapturedExchange {
  return {
    url: "https://www.example.com/page?b=2&a=1",
    fetchedAt: FETCHED_AT,
    remoteAddress: "93.184.216.34",
    httpVersion: "1.1",
    requestHeaders: { "User-Agent": "crawler/1.0 (+https://crawler.test/info)", Accept: "text/html" },
    status: 200,
    responseHeaders: { "Content-Type": "text/html; charset=utf-8", Server: "test" },
    body: enc.encode("<html><body><a href='/x'>hello</a></body></html>"),
    ...overrides,
  };
}

async function readAll(path: string): Promise<WarcRecordView[]> {
  const out: WarcRecordView[] = [];
  for await (const r of readWarc(path)) out.push(r);
  return out;
}

async function warcFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith(".warc.gz")).sort();
}

/** What warcio's own CDXJ indexer says about a file. */
async function warcioCdxj(dir: string, filename: string): Promise<string> {
  const indexer = new CDXIndexer({ format: "cdxj" });
  let out = "";
  const reader = (async function* () {
    yield new Uint8Array(await readFile(join(dir, filename)));
  })();
  for await (const entry of indexer.iterIndex([{ filename, reader }])) out += indexer.serialize(entry);
  return out;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("WarcWriter records", () => {
  test("warc - writes a warcinfo record, then a response and a request per exchange", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK, software: "crawler-test/0.1" });
    await w.write(exchange());
    await w.write(exchange({ url: "https://example.org/two", status: 404, body: enc.encode("missing") }));
    await w.close();

    const [file] = await warcFiles(dir);
    const records = await readAll(join(dir, file!));
    expect(records.map((r) => r.type)).toEqual(["warcinfo", "response", "request", "response", "request"]);
    expect(records.map((r) => r.url)).toEqual([
      undefined,
      "https://www.example.com/page?b=2&a=1",
      "https://www.example.com/page?b=2&a=1",
      "https://example.org/two",
      "https://example.org/two",
    ]);
    expect(records[3]?.status).toBe(404);
    expect(new TextDecoder().decode(records[3]?.payload)).toBe("missing");

    const info = records[0]!;
    expect(info.warcHeaders["WARC-Filename"]).toBe(file!);
    expect(info.warcHeaders["Content-Type"]).toBe("application/warc-fields");
    const fields = new TextDecoder().decode(info.payload);
    expect(fields).toContain("software: crawler-test/0.1\r\n");
    expect(fields).toContain("format: WARC File Format 1.1\r\n");
  });

  test("warc - writes WARC/1.1 headers: ids, date, IP, links between the pair and to the warcinfo", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(exchange());
    await w.close();
    const [file] = await warcFiles(dir);
    const raw = gunzipSync(await readFile(join(dir, file!))).toString("latin1");
    expect(raw.startsWith("WARC/1.1\r\n")).toBe(true);
    expect(raw.split("WARC/1.1\r\n").length - 1).toBe(3);

    const [info, res, req] = await readAll(join(dir, file!));
    const resH = res!.warcHeaders;
    const reqH = req!.warcHeaders;
    for (const h of [info!.warcHeaders, resH, reqH]) expect(h["WARC-Record-ID"]).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
    expect(resH["WARC-Date"]).toBe("2024-01-02T03:04:05.678Z");
    expect(reqH["WARC-Date"]).toBe("2024-01-02T03:04:05.678Z");
    expect(resH["WARC-IP-Address"]).toBe("93.184.216.34");
    expect(resH["WARC-Concurrent-To"]).toBe(reqH["WARC-Record-ID"]!);
    expect(reqH["WARC-Concurrent-To"]).toBe(resH["WARC-Record-ID"]!);
    expect(resH["WARC-Warcinfo-ID"]).toBe(info!.warcHeaders["WARC-Record-ID"]!);
    expect(resH["Content-Type"]).toBe("application/http; msgtype=response");
    expect(reqH["Content-Type"]).toBe("application/http; msgtype=request");
    expect(resH["WARC-Truncated"]).toBeUndefined();
  });

  test("warc - lets warcio compute payload and block digests", async () => {
    const ex = exchange();
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(ex);
    await w.close();
    const [, res] = await readAll(join(dir, (await warcFiles(dir))[0]!));
    const sha = createHash("sha256").update(ex.body).digest("hex");
    expect(res!.warcHeaders["WARC-Payload-Digest"]).toBe(`sha256:${sha}`);
    expect(res!.warcHeaders["WARC-Block-Digest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res!.warcHeaders["WARC-Block-Digest"]).not.toBe(`sha256:${sha}`); // the block includes HTTP headers
  });

  test("warc - writes the request line with the origin-form target and adds Host when missing", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(exchange({ method: "get", httpVersion: "HTTP/1.1" }));
    await w.close();
    const raw = gunzipSync(await readFile(join(dir, (await warcFiles(dir))[0]!))).toString("latin1");
    expect(raw).toContain("\r\nGET /page?b=2&a=1 HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: crawler/1.0");
    expect(raw).toContain("\r\nHTTP/1.1 200 OK\r\n");
  });

  test("warc - stores headers that describe the decoded body and keeps the originals aside", async () => {
    const body = enc.encode("decoded body, longer than what came over the wire");
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(
      exchange({
        body,
        contentEncodingRemoved: "gzip",
        responseHeaders: {
          "Content-Type": "text/html",
          "content-encoding": "gzip",
          "Transfer-Encoding": "chunked",
          "Content-Length": "31",
          ETag: '"abc"',
        },
      }),
    );
    await w.close();
    const [, res] = await readAll(join(dir, (await warcFiles(dir))[0]!));
    expect(res!.httpHeaders).toEqual({
      "Content-Type": "text/html",
      "Content-Length": String(body.length),
      ETag: '"abc"',
      "X-Crawler-Original-Content-Encoding": "gzip",
      "X-Crawler-Original-Transfer-Encoding": "chunked",
      "X-Crawler-Original-Content-Length": "31",
    });
    expect(res!.payload).toEqual(body);
  });

  test("warc - marks a truncated body with WARC-Truncated: length", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(exchange({ truncated: true }));
    await w.close();
    const [, res] = await readAll(join(dir, (await warcFiles(dir))[0]!));
    expect(res!.warcHeaders["WARC-Truncated"]).toBe("length");
  });

  test("warc - neutralises CR and LF in header values so a server cannot forge header lines", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(exchange({ responseHeaders: { "X-Evil": "a\r\nWARC-Type: resource\r\n\r\nx" } }));
    await w.close();
    const [, res, req] = await readAll(join(dir, (await warcFiles(dir))[0]!));
    expect(res!.type).toBe("response");
    expect(req!.type).toBe("request");
    expect(res!.httpHeaders?.["X-Evil"]).toBe("a WARC-Type: resource x");
  });

  test("warc - stores an empty body and a status without a known reason phrase", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.write(exchange({ status: 599, body: new Uint8Array(), responseHeaders: {} }));
    await w.close();
    const [, res] = await readAll(join(dir, (await warcFiles(dir))[0]!));
    expect(res!.status).toBe(599);
    expect(res!.payload.length).toBe(0);
    expect(res!.httpHeaders).toEqual({ "Content-Length": "0" });
  });
});

describe("WarcWriter layout", () => {
  test("warc - compresses every record as its own gzip member, members tiling the file", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    for (let i = 0; i < 3; i++) await w.write(exchange({ url: `https://example.com/${i}` }));
    await w.close();
    const path = join(dir, (await warcFiles(dir))[0]!);
    const bytes = new Uint8Array(await readFile(path));
    const records = await readAll(path);
    expect(records).toHaveLength(7);
    let expectedOffset = 0;
    for (const r of records) {
      expect(r.offset).toBe(expectedOffset);
      const member = bytes.subarray(r.offset, r.offset + r.length);
      expect([member[0], member[1]]).toEqual([0x1f, 0x8b]);
      const text = gunzipSync(member).toString("latin1");
      expect(text.startsWith("WARC/1.1\r\n")).toBe(true);
      expect(text.indexOf("WARC/1.1\r\n", 1)).toBe(-1); // exactly one record in this member
      expect(text.endsWith("\r\n\r\n")).toBe(true);
      expectedOffset += r.length;
    }
    expect(expectedOffset).toBe(bytes.length);
  });

  test("warc - returns the response record's place, readable alone with one seek", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    const placed = [];
    for (let i = 0; i < 3; i++) placed.push(await w.write(exchange({ url: `https://example.com/${i}`, body: enc.encode(`body ${i}`) })));
    await w.close();
    for (const [i, p] of placed.entries()) {
      const r = await readRecordAt(join(dir, p.filename), p.offset, p.length);
      expect(r.type).toBe("response");
      expect(r.url).toBe(`https://example.com/${i}`);
      expect(new TextDecoder().decode(r.payload)).toBe(`body ${i}`);
    }
  });

  test("warc - keeps records whole and offsets exact under concurrent writes", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK, maxFileBytes: 4_000 });
    const placed = await Promise.all(
      Array.from({ length: 20 }, (_, i) => w.write(exchange({ url: `https://example.com/c${i}`, body: enc.encode("x".repeat(i * 50)) }))),
    );
    await w.close();
    for (const [i, p] of placed.entries()) {
      const r = await readRecordAt(join(dir, p.filename), p.offset, p.length);
      expect(r.url).toBe(`https://example.com/c${i}`);
      expect(r.payload.length).toBe(i * 50);
    }
  });

  test("warc - names files prefix-timestamp-sequence and rotates once a file reaches maxFileBytes", async () => {
    const w = await WarcWriter.open({ dir, prefix: "test", clock: CLOCK, maxFileBytes: 1_500 });
    const placed = [];
    for (let i = 0; i < 4; i++)
      placed.push(await w.write(exchange({ url: `https://example.com/r${i}`, body: enc.encode("y".repeat(600)) })));
    await w.close();
    const files = await warcFiles(dir);
    expect(files.length).toBeGreaterThan(1);
    expect(files[0]).toBe("test-20240102030406-00001.warc.gz");
    expect(files[1]).toBe("test-20240102030406-00002.warc.gz");
    for (const f of files) {
      const records = await readAll(join(dir, f));
      expect(records[0]?.type).toBe("warcinfo");
      expect(records[0]?.warcHeaders["WARC-Filename"]).toBe(f);
      // A file overshoots the limit by at most the exchange that crossed it.
      const lastStart = records.at(-2)!.offset;
      expect(lastStart).toBeLessThan(1_500);
    }
    expect(new Set(placed.map((p) => p.filename)).size).toBe(files.length);
  });

  test("warc - creates no file until the first write", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    await w.close();
    expect(await warcFiles(dir)).toEqual([]);
  });

  test("warc - starts a new file on reopen and leaves the old one untouched", async () => {
    const w1 = await WarcWriter.open({ dir, clock: CLOCK });
    await w1.write(exchange());
    await w1.close();
    const [first] = await warcFiles(dir);
    const before = await readFile(join(dir, first!));

    const w2 = await WarcWriter.open({ dir, clock: CLOCK });
    const placed = await w2.write(exchange({ url: "https://example.com/after-restart" }));
    await w2.close();
    expect(placed.filename).toBe("crawl-20240102030406-00002.warc.gz");
    expect(await warcFiles(dir)).toEqual([first!, placed.filename]);
    expect(await readFile(join(dir, first!))).toEqual(before);
  });

  test("warc - survives a crash that left a torn record and a torn index line", async () => {
    const w1 = await WarcWriter.open({ dir, clock: CLOCK });
    await w1.write(exchange());
    await w1.close();
    const [first] = await warcFiles(dir);
    // What a kill mid-write leaves: half a gzip member at the end of the file, half a line in the index.
    await appendFile(join(dir, first!), Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02));
    await appendFile(join(dir, INDEX_FILE), 'com,example)/torn 2024 {"url":"https://exa');

    const w2 = await WarcWriter.open({ dir, clock: CLOCK });
    const placed = await w2.write(exchange({ url: "https://example.com/next" }));
    await w2.close();
    expect(placed.filename).not.toBe(first);
    const lines = (await readFile(join(dir, INDEX_FILE), "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(() => JSON.parse(line.slice(line.indexOf("{")))).not.toThrow();
    const r = await readRecordAt(join(dir, placed.filename), placed.offset, placed.length);
    expect(r.url).toBe("https://example.com/next");
  });

  test("warc - rejects writes after close and closes idempotently", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    const pending = w.write(exchange());
    await Promise.all([w.close(), w.close()]);
    expect((await pending).offset).toBeGreaterThan(0); // queued before close, so it landed
    await expect(w.write(exchange())).rejects.toThrow("closed");
  });

  test("warc - refuses a prefix that is not a plain file name part", async () => {
    await expect(WarcWriter.open({ dir, prefix: "../escape" })).rejects.toThrow("prefix");
  });
});

describe("WarcWriter CDXJ index", () => {
  test("warc - indexes each response with SURT key, timestamp and a JSON block pointing at it", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK });
    const placed = await w.write(exchange());
    await w.close();
    const lines = (await readFile(join(dir, INDEX_FILE), "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const [key, ts, ...rest] = lines[0]!.split(" ");
    expect(key).toBe("com,example)/page?a=1&b=2");
    expect(ts).toBe("20240102030405");
    const json = JSON.parse(rest.join(" "));
    expect(json).toEqual({
      url: "https://www.example.com/page?b=2&a=1",
      mime: "text/html",
      status: "200",
      digest: createHash("sha256").update(exchange().body).digest("hex"),
      length: String(placed.length),
      offset: String(placed.offset),
      filename: placed.filename,
    });
  });

  test("warc - writes index lines identical to warcio's own CDXJ indexer, across rotated files", async () => {
    const w = await WarcWriter.open({ dir, clock: CLOCK, maxFileBytes: 2_000 });
    await w.write(exchange());
    await w.write(exchange({ url: "https://example.com/no-type", responseHeaders: {} }));
    await w.write(
      exchange({
        url: "http://sub.example.com:8080/a/b?z=1&y=2",
        status: 301,
        responseHeaders: { Location: "/c", "content-type": "text/plain" },
      }),
    );
    await w.write(exchange({ url: "https://example.com/head", method: "HEAD", body: new Uint8Array() }));
    await w.write(exchange({ url: "https://example.com/big", body: enc.encode("z".repeat(3_000)), truncated: true }));
    await w.close();
    const files = await warcFiles(dir);
    expect(files.length).toBeGreaterThan(1);
    let expected = "";
    for (const f of files) expected += await warcioCdxj(dir, f);
    expect(expected.trimEnd().split("\n")).toHaveLength(5);
    expect(expected).toContain('"method":"HEAD"');
    expect(await readFile(join(dir, INDEX_FILE), "utf8")).toBe(expected);
  });

  test("warc - appends to an existing index across restarts", async () => {
    for (let i = 0; i < 2; i++) {
      const w = await WarcWriter.open({ dir, clock: CLOCK });
      await w.write(exchange({ url: `https://example.com/run${i}` }));
      await w.close();
    }
    const lines = (await readFile(join(dir, INDEX_FILE), "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l.slice(l.indexOf("{"))).filename)).toEqual(await warcFiles(dir));
  });
});
