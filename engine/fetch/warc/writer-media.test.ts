/**
 * The WARC writer's records beyond request and response: a revisit record in place of a duplicate payload
 * (WARC 1.1's identical-payload-digest profile, and this project's near-duplicate profile), and the metadata
 * record and media list of a page's media, checked with warcio's own reader and indexer.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { CDXIndexer } from "warcio";
import {
  INDEX_FILE,
  MEDIA_LIST_FILE,
  REVISIT_PROFILES,
  WarcWriter,
  readWarc,
  type CapturedExchange,
  type WarcRecordView,
} from "./index.ts";

const FETCHED_AT = Date.UTC(2024, 0, 2, 3, 4, 5);
const enc = new TextEncoder();
const BODY = enc.encode("<html><body><p>the same words as the other page</p></body></html>");
const MEDIA = [
  { url: "https://cdn.example.com/a.jpg", kind: "image", via: "img/@src" },
  { url: "https://cdn.example.com/v.mp4", kind: "video", via: "video/@src" },
] as const;

function exchange(overrides: Partial<CapturedExchange> = {}): CapturedExchange {
  return {
    url: "https://example.com/b",
    fetchedAt: FETCHED_AT,
    httpVersion: "1.1",
    requestHeaders: { "User-Agent": "crawler/1.0" },
    status: 200,
    responseHeaders: { "Content-Type": "text/html; charset=utf-8" },
    body: BODY,
    ...overrides,
  };
}

async function records(d: string): Promise<WarcRecordView[]> {
  const [file] = (await readdir(d)).filter((n) => n.endsWith(".warc.gz"));
  const out: WarcRecordView[] = [];
  for await (const r of readWarc(join(d, file!))) out.push(r);
  return out;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-media-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("WarcWriter revisits and media", () => {
  test("warc - a duplicate payload is a revisit record: headers only, truncated by length, the digest of what was received", async () => {
    const w = await WarcWriter.open({ dir });
    await w.write(exchange({ revisit: { profile: "identical-payload-digest", refersToUri: "https://example.com/a" } }));
    await w.close();
    const [, revisit, request] = await records(dir);
    expect(revisit?.type).toBe("revisit");
    expect(request?.type).toBe("request");
    expect(revisit?.warcHeaders["WARC-Profile"]).toBe("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
    expect(revisit?.warcHeaders["WARC-Refers-To-Target-URI"]).toBe("https://example.com/a");
    expect(revisit?.warcHeaders["WARC-Truncated"]).toBe("length");
    expect(revisit?.warcHeaders["WARC-Payload-Digest"]).toBe(`sha256:${createHash("sha256").update(BODY).digest("hex")}`);
    expect(revisit?.payload.length).toBe(0);
    expect(revisit?.status).toBe(200);
    expect(revisit?.httpHeaders?.["Content-Type"]).toBe("text/html; charset=utf-8");
    expect(revisit?.warcHeaders["WARC-Concurrent-To"]).toBe(request?.warcHeaders["WARC-Record-ID"]);
  });

  test("warc - a near duplicate names this project's profile and carries its SimHash", async () => {
    const w = await WarcWriter.open({ dir });
    const simhash = "00ff00ff00ff00ff";
    await w.write(exchange({ revisit: { profile: "near-duplicate", refersToUri: "https://example.com/a", simhash } }));
    await w.close();
    const [, revisit] = await records(dir);
    expect(revisit?.warcHeaders["WARC-Profile"]).toBe(REVISIT_PROFILES["near-duplicate"]);
    expect(revisit?.warcHeaders["X-Crawler-SimHash"]).toBe(simhash);
    // One WARC-Profile only: warcio's default is replaced, not repeated.
    const raw = new TextDecoder().decode(gunzipSync(await readFile(join(dir, (await readdir(dir)).find((n) => n.endsWith(".warc.gz"))!))));
    expect(raw.match(/WARC-Profile:/g)).toHaveLength(1);
  });

  test("warc - a page's media are listed in a metadata record tied to its response, and in media.jsonl", async () => {
    const w = await WarcWriter.open({ dir });
    await w.write(exchange({ media: MEDIA }));
    await w.write(exchange({ url: "https://example.com/no-media" }));
    await w.close();
    const all = await records(dir);
    expect(all.map((r) => r.type)).toEqual(["warcinfo", "response", "request", "metadata", "response", "request"]);
    const [, response, , metadata] = all;
    expect(metadata?.url).toBe("https://example.com/b");
    expect(metadata?.warcHeaders["Content-Type"]).toBe("application/warc-fields");
    expect(metadata?.warcHeaders["WARC-Refers-To"]).toBe(response?.warcHeaders["WARC-Record-ID"]);
    expect(metadata?.warcHeaders["WARC-Concurrent-To"]).toBe(response?.warcHeaders["WARC-Record-ID"]);
    expect(metadata?.warcHeaders["WARC-Date"]).toBe(response?.warcHeaders["WARC-Date"]);
    expect(new TextDecoder().decode(metadata?.payload)).toBe(
      "media: https://cdn.example.com/a.jpg image img/@src\r\nmedia: https://cdn.example.com/v.mp4 video video/@src\r\n",
    );
    const lines = (await readFile(join(dir, MEDIA_LIST_FILE), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(
      MEDIA.map((m) => ({
        page: "https://example.com/b",
        date: "2024-01-02T03:04:05.000Z",
        url: m.url,
        kind: m.kind,
        via: m.via,
        warc: expect.stringMatching(/\.warc\.gz$/),
      })),
    );
  });

  test("warc - the index lists revisits as warcio does (warc/revisit) and skips metadata records", async () => {
    const w = await WarcWriter.open({ dir });
    await w.write(exchange({ media: MEDIA }));
    await w.write(
      exchange({ url: "https://example.com/c", revisit: { profile: "identical-payload-digest", refersToUri: "https://example.com/b" } }),
    );
    await w.close();
    const ours = await readFile(join(dir, INDEX_FILE), "utf8");
    const [file] = (await readdir(dir)).filter((n) => n.endsWith(".warc.gz"));
    const indexer = new CDXIndexer({ format: "cdxj" });
    let theirs = "";
    const reader = (async function* () {
      yield new Uint8Array(await readFile(join(dir, file!)));
    })();
    for await (const entry of indexer.iterIndex([{ filename: file!, reader }])) theirs += indexer.serialize(entry);
    expect(ours).toBe(theirs);
    expect(ours).toContain('"mime":"warc/revisit"');
  });

  test("warc - in upload mode each file has its own media list, moved with the file when it is finished", async () => {
    const finished = join(dir, "finished");
    const w = await WarcWriter.open({ dir, finishedDir: finished, maxFileBytes: 1 });
    await w.write(exchange({ media: MEDIA }));
    await w.write(exchange({ url: "https://example.com/plain" }));
    await w.close();
    const names = (await readdir(finished)).sort();
    const warcs = names.filter((n) => n.endsWith(".warc.gz"));
    expect(warcs).toHaveLength(2);
    // Only the file whose page named media has a media list.
    expect(names.filter((n) => n.endsWith(".media.jsonl"))).toEqual([warcs[0]!.replace(".warc.gz", ".media.jsonl")]);
    expect((await readdir(dir)).filter((n) => n.endsWith(".jsonl"))).toEqual([]);
  });
});
