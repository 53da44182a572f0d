/**
 * The fetch worker's steps on canned responses (a fetcher that answers from a table, the in-memory content
 * index, a page store that keeps what it is given): what is stored (response, revisit, media list), what comes
 * back as links (pages, media, at which priority mark), and what is never parsed.
 */
import { describe, expect, test } from "bun:test";
import { MemoryContentIndex } from "../../../adapters/memory/index.ts";
import type { CapturedExchange, FetchOutcome, FetchRequest, FetchTask } from "../../../core/model/index.ts";
import type { Fetcher, PageStore, StoredRecords } from "../../../core/ports/index.ts";
import { FetchWorker } from "./worker.ts";

const enc = new TextEncoder();
const PROSE = Array.from({ length: 300 }, (_, i) => `word${i % 97} text${(i * 7) % 89} more${(i * 13) % 83}`).join(" ");

function html(body: string): string {
  return `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
}

class TableFetcher implements Fetcher {
  readonly requests: FetchRequest[] = [];
  constructor(private readonly pages: Record<string, { body: string; type?: string; status?: number }>) {}
  async fetch(req: FetchRequest): Promise<FetchOutcome> {
    this.requests.push(req);
    const page = this.pages[req.url];
    const body = enc.encode(page?.body ?? "missing");
    return {
      kind: "response",
      url: req.url,
      status: page ? (page.status ?? 200) : 404,
      headers: { "content-type": page?.type ?? "text/html; charset=utf-8" },
      body,
      truncated: false,
      startedAt: 1,
      endedAt: 2,
      requestHeaders: {},
      httpVersion: "1.1",
    };
  }
}

class KeptPages implements PageStore {
  readonly kept: CapturedExchange[] = [];
  /** Says each exchange lies at its position in `kept`, and its text (when given) at the same in "kept.wet". */
  async write(exchange: CapturedExchange): Promise<StoredRecords> {
    this.kept.push(exchange);
    const at = this.kept.length - 1;
    return {
      warc: { file: "kept", offset: at, length: 1 },
      ...(exchange.text ? { text: { file: "kept.wet", offset: at, length: 1 } } : {}),
    };
  }
}

function setup(pages: Record<string, { body: string; type?: string }>) {
  const fetcher = new TableFetcher(pages);
  const store = new KeptPages();
  const content = new MemoryContentIndex();
  const worker = new FetchWorker({
    fetcher,
    store,
    content,
    agentToken: "testbot",
    gap: { multiplier: 10, marginMs: 0 },
    maxMediaBodyBytes: 12_345,
    now: () => 0,
    sleep: async () => {},
  });
  return { worker, fetcher, store };
}

let ids = 0;
function task(url: string, extra: Partial<FetchTask> = {}): FetchTask {
  return {
    taskId: `t${ids++}`,
    kind: "page",
    url,
    host: new URL(url).host,
    partition: 0,
    depth: 1,
    redirectHops: 0,
    hostGapMs: 0,
    issuedAt: 0,
    ...extra,
  };
}

const MEDIA_PAGE = html(
  `<p>${PROSE}</p><a href="/next">next</a><img src="/a.jpg" srcset="/a.jpg 1x, /a@2x.jpg?utm_source=x 2x">` +
    `<video src="/v.mp4" poster="/poster.jpg"></video><img src="data:image/png;base64,AA">`,
);

describe("fetch worker: media", () => {
  test("worker - lists a page's media with the stored response, once each, and fetches none by default", async () => {
    const { worker, store } = setup({ "http://a.test/p": { body: MEDIA_PAGE } });
    const out = await worker.run(task("http://a.test/p"));
    expect(out.links.map((l) => [l.url, l.kind])).toEqual([["http://a.test/next", undefined]]);
    expect(out.result.mediaFound).toBe(4);
    expect(store.kept[0]?.media).toEqual([
      { url: "http://a.test/a.jpg", kind: "image", via: "img/@src" },
      { url: "http://a.test/a@2x.jpg?utm_source=x", kind: "image", via: "img/@srcset" },
      { url: "http://a.test/v.mp4", kind: "video", via: "video/@src" },
      { url: "http://a.test/poster.jpg", kind: "image", via: "video/@poster" },
    ]);
  });

  test("worker - a task that asks for media gets them back as normalized URLs of kind media, one link deeper", async () => {
    const { worker } = setup({ "http://a.test/p": { body: MEDIA_PAGE } });
    const out = await worker.run(task("http://a.test/p", { fetchMedia: true, depth: 2 }));
    const media = out.links.filter((l) => l.kind === "media");
    expect(media.map((l) => l.url)).toEqual([
      "http://a.test/a.jpg",
      "http://a.test/a@2x.jpg",
      "http://a.test/v.mp4",
      "http://a.test/poster.jpg",
    ]);
    expect(media.every((l) => l.depth === 3 && l.sourceUrl === "http://a.test/p")).toBe(true);
    expect(out.result.linksFound).toBe(1);
  });

  test("worker - a nofollow page's media are listed but not fetched", async () => {
    const body = MEDIA_PAGE.replace("<title>", '<meta name="robots" content="nofollow"><title>');
    const { worker, store } = setup({ "http://a.test/p": { body } });
    const out = await worker.run(task("http://a.test/p", { fetchMedia: true }));
    expect(out.links).toEqual([]);
    expect(store.kept[0]?.media).toHaveLength(4);
  });

  test("worker - a media task uses the media body cap, stores the response and never parses it", async () => {
    const { worker, fetcher, store } = setup({
      "http://a.test/a.svg": { body: `<svg><a href="/trap">x</a></svg>`, type: "text/html" },
    });
    const out = await worker.run(task("http://a.test/a.svg", { kind: "media" }));
    expect(fetcher.requests[0]?.maxBodyBytes).toBe(12_345);
    expect(out.links).toEqual([]);
    expect(out.result.kind).toBe("response");
    expect(out.result.bytes).toBeGreaterThan(0);
    expect(store.kept[0]?.revisit).toBeUndefined();
  });
});

describe("fetch worker: duplicates", () => {
  test("worker - an exact duplicate of another URL is a revisit naming it, with no links", async () => {
    const body = html(`<p>${PROSE}</p><a href="/x">x</a>`);
    const { worker, store } = setup({ "http://a.test/1": { body }, "http://a.test/2": { body } });
    await worker.run(task("http://a.test/1"));
    const out = await worker.run(task("http://a.test/2"));
    expect(out.result.duplicateOf).toBe("http://a.test/1");
    expect(out.links).toEqual([]);
    expect(out.result.bytes).toBe(0);
    expect(store.kept[1]?.revisit).toEqual({ profile: "identical-payload-digest", refersToUri: "http://a.test/1" });
  });

  test("worker - a refetch that finds the same bytes is a revisit of its own last visit, and still yields its links", async () => {
    const body = html(`<p>${PROSE}</p><a href="/x">x</a>`);
    const { worker, store } = setup({ "http://a.test/1": { body } });
    const first = await worker.run(task("http://a.test/1"));
    const again = await worker.run(task("http://a.test/1", { previousFingerprint: first.result.fingerprint }));
    expect(again.result.changed).toBe(false);
    expect(store.kept[1]?.revisit).toEqual({ profile: "identical-payload-digest", refersToUri: "http://a.test/1" });
    expect(again.links.map((l) => l.url)).toEqual(["http://a.test/x"]);
  });

  test("worker - a near duplicate is a revisit of this project's profile, and its links are marked for the lowest priority", async () => {
    const original = html(`<p>${PROSE} zebra</p><a href="/o">o</a>`);
    const near = html(`<p>${PROSE} quokka</p><a href="/n">n</a>`);
    const { worker, store } = setup({ "http://a.test/orig": { body: original }, "http://a.test/near": { body: near } });
    const a = await worker.run(task("http://a.test/orig"));
    expect(a.links[0]?.foundOnNearDuplicate).toBeUndefined();
    const b = await worker.run(task("http://a.test/near"));
    expect(b.result.nearDuplicateOf).toBe("http://a.test/orig");
    expect(b.links.map((l) => [l.url, l.foundOnNearDuplicate])).toEqual([["http://a.test/n", true]]);
    expect(store.kept[1]?.revisit).toMatchObject({
      profile: "near-duplicate",
      refersToUri: "http://a.test/orig",
      simhash: b.result.simhash,
    });
    expect(b.result.bytes).toBe(0);
  });

  test("worker - a refetched page is not judged a near duplicate of another page", async () => {
    const original = html(`<p>${PROSE} zebra</p>`);
    const near = html(`<p>${PROSE} quokka</p>`);
    const { worker, store } = setup({ "http://a.test/orig": { body: original }, "http://a.test/near": { body: near } });
    await worker.run(task("http://a.test/orig"));
    const out = await worker.run(task("http://a.test/near", { previousFingerprint: "an older version" }));
    expect(out.result.nearDuplicateOf).toBeUndefined();
    expect(out.result.changed).toBe(true);
    expect(store.kept[1]?.revisit).toBeUndefined();
  });
});

describe("fetch worker: where records lie, and a page's text", () => {
  test("worker - an HTML page hands its title and visible text to the store, and its result says where both records lie", async () => {
    const { worker, store } = setup({ "http://a.test/p": { body: html(`<p>${PROSE}</p><script>var hidden = 1;</script>`) } });
    const out = await worker.run(task("http://a.test/p"));
    expect(store.kept[0]?.text?.title).toBe("t");
    expect(store.kept[0]?.text?.text).toStartWith("word0 text0 more0");
    expect(store.kept[0]?.text?.text).not.toContain("hidden");
    expect(out.result.warc).toEqual({ file: "kept", offset: 0, length: 1 });
    expect(out.result.text).toEqual({ file: "kept.wet", offset: 0, length: 1 });
  });

  test("worker - a non-HTML body and an error status are stored without text; a noindex page is not stored at all", async () => {
    const { worker, store } = setup({
      "http://a.test/a.pdf": { body: "%PDF-1.4 binary", type: "application/pdf" },
      "http://a.test/n": { body: html(`<meta name="robots" content="noindex"><p>${PROSE}</p>`) },
    });
    const pdf = await worker.run(task("http://a.test/a.pdf"));
    expect(store.kept[0]?.text).toBeUndefined();
    expect(pdf.result.warc).toEqual({ file: "kept", offset: 0, length: 1 });
    expect(pdf.result.text).toBeUndefined();
    expect(pdf.result.contentType).toBe("application/pdf");
    const noindex = await worker.run(task("http://a.test/n"));
    expect(store.kept).toHaveLength(1);
    expect(noindex.result.warc).toBeUndefined();
    expect(noindex.result.text).toBeUndefined();
  });
});
