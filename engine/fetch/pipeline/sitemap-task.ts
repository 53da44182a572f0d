/**
 * Reading one sitemap (sitemaps.org): a GET like any other request to its host (the frontier that owns
 * the host checked robots.txt and the gap before it issued the task), its body streamed, never held
 * whole, in this order:
 *
 *   request           the streaming fetch: the body arrives decoded from its Content-Encoding
 *   gzip?             a body that starts with the gzip magic bytes (`sitemap.xml.gz`) is decompressed too,
 *                     as a stream
 *   read              SitemapReader (parse/sitemap.ts): XML urlset or index, or text, stopping at the
 *                     protocol's limits, 50 MB uncompressed and 50,000 entries
 *   entries           each `<loc>` normalized and checked against the protocol's location rules
 *                     (core/sitemap): a page entry must lie under the sitemap's directory or an origin a
 *                     robots.txt granted it; a sitemap an index lists must be on the index's site; a
 *                     feed's item (RSS, Atom: the same reader) must be on the feed's own site or a
 *                     granted origin (a feed at /blog/feed/ lists posts all over its site)
 *   media             with --fetch-media, the image and video extensions' media URLs as media links
 *   store             the response in the WARC file like any other, its body capped at the body cap
 *
 * Page entries leave as links one level deeper than the task, with their `lastmod` and `priority` (a
 * feed's items with their date as `lastmod` and the top priority: a feed lists what is new); the
 * sitemaps of an index leave as links marked as sitemaps, which the frontier reads in turn (an index
 * listed by an index is not followed: the protocol has no nesting). A redirect is not followed here: its
 * target goes back to the frontier as a sitemap to read, so it passes the target host's robots.txt and
 * gap, keeping the grants and the directory of the sitemap that was named. What was read is summed up in
 * `result.sitemap` for the frontier's counters.
 */
import type { DiscoveredUrl, FetchTask, SitemapRef, SitemapSummary } from "../../../core/model/index.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import {
  entryAllowed,
  parseLastmod,
  parseSitemapPriority,
  sameSite,
  SITEMAP_MAX_BYTES,
  sitemapDirectory,
} from "../../../core/sitemap/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import { gunzipStream, type FetchResponse, type StreamedResponseHead } from "../http/index.ts";
import { SitemapReader, type SitemapEntry } from "../parse/index.ts";
import { resultFor } from "./result-base.ts";
import { storeResponse } from "./store-step.ts";
import type { WorkerDeps } from "./types.ts";

const DEFAULT_MAX_BODY = 5 * 1024 * 1024;
/** A feed's items go to the first front queue, with home pages: a feed lists what is new. */
const FEED_ITEM_PRIORITY = 1;

/** What reading the body gave: the copy kept for the WARC file, and the entries. */
interface Read {
  stored: Uint8Array;
  truncated: boolean;
  summary?: SitemapSummary;
  links: DiscoveredUrl[];
}

export async function runSitemapTask(deps: WorkerDeps, task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
  const ref: SitemapRef = task.sitemap ?? { grants: [] };
  const maxStored = deps.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const read = (head: StreamedResponseHead, body: AsyncIterable<Uint8Array>) => readSitemap(task, ref, head, body, maxStored);
  // A feed read again carries the validators of its last answer (a conditional GET): a 304 has no body to read.
  const req = { url: task.url, signal, etag: task.etag, lastModified: task.lastModified };
  let response: FetchResponse;
  let got: Read;
  if (deps.fetcher.stream) {
    const outcome = await deps.fetcher.stream(req, read, SITEMAP_MAX_BYTES);
    if (outcome.kind === "error") return { result: resultFor(task, outcome), links: [] };
    got = outcome.value;
    response = { ...outcome, kind: "response", body: got.stored, truncated: got.truncated };
  } else {
    // A fetcher that cannot stream (a test's stand-in): the body as fetched, capped at the body cap.
    const outcome = await deps.fetcher.fetch(req);
    if (outcome.kind === "error") return { result: resultFor(task, outcome), links: [] };
    got = await read(
      outcome,
      (async function* () {
        yield outcome.body;
      })(),
    );
    response = { ...outcome, truncated: outcome.truncated || got.truncated, body: got.stored };
  }
  const result = resultFor(task, response);
  if (response.status >= 300 && response.status < 400 && response.status !== 304) {
    const target = redirectTarget(task, ref, response.headers["location"]);
    if (target) got.links.push(target);
  }
  if (got.summary) result.sitemap = got.summary;
  result.linksFound = got.links.length;
  await storeResponse(deps.store, response, result);
  return { result, links: got.links };
}

async function readSitemap(
  task: FetchTask,
  ref: SitemapRef,
  head: StreamedResponseHead,
  body: AsyncIterable<Uint8Array>,
  maxStored: number,
): Promise<Read> {
  const copy = new CappedCopy(maxStored);
  const ok = head.status >= 200 && head.status < 300;
  if (!ok) {
    // Not a sitemap to read; the start of the body is kept for the WARC record.
    for await (const chunk of body) if (!copy.add(chunk)) break;
    return { stored: copy.bytes(), truncated: copy.truncated, links: [] };
  }
  const entries = new EntryCollector(task, ref);
  const reader = new SitemapReader((entry) => entries.add(entry, reader.format));
  const input = body[Symbol.asyncIterator]();
  const first = await input.next();
  if (!first.done) {
    copy.add(first.value);
    const gzip = first.value[0] === 0x1f && first.value[1] === 0x8b;
    // The body as stored (Content-Encoding undone) is copied; what is read is that, gunzipped if a gzip file.
    const stored = (async function* () {
      yield first.value;
      for (let next = await input.next(); !next.done; next = await input.next()) {
        copy.add(next.value);
        yield next.value;
      }
    })();
    const content = gzip ? gunzipStream(stored, SITEMAP_MAX_BYTES + SITEMAP_MAX_BYTES / 16).chunks : stored;
    for await (const chunk of content) {
      reader.write(chunk);
      if (reader.done) break;
    }
  }
  reader.end();
  const summary = entries.summary(reader);
  return { stored: copy.bytes(), truncated: copy.truncated, summary, links: [...entries.links, ...entries.media] };
}

/** Turns entries into links, applying the protocol's location rules, and counts what it refused. */
class EntryCollector {
  readonly links: DiscoveredUrl[] = [];
  /** Media the extensions named (kept apart so `entries` counts pages only). */
  readonly media: DiscoveredUrl[] = [];
  private readonly seen = new Set<string>();
  private outOfLocation = 0;
  private invalid = 0;
  private nested = false;

  constructor(
    private readonly task: FetchTask,
    private readonly ref: SitemapRef,
  ) {}

  add(entry: SitemapEntry, format: string | undefined): void {
    const n = entry.loc === "" ? undefined : normalizeUrl(entry.loc);
    if (!n?.ok) {
      this.invalid++;
      return;
    }
    const lastmod = entry.lastmod === undefined ? undefined : parseLastmod(entry.lastmod);
    if (format === "index") {
      if (!sameSite(this.task.url, n.url)) return void this.outOfLocation++;
      if (this.ref.fromIndex) return void (this.nested = true);
      if (this.seen.has(n.url)) return;
      this.seen.add(n.url);
      this.links.push({
        url: n.url,
        host: hostKeyOf(n.url),
        depth: this.task.depth,
        sourceUrl: this.task.url,
        redirectHops: 0,
        sitemap: { grants: this.ref.grants, fromIndex: true },
        ...(lastmod !== undefined ? { lastmod } : {}),
      });
      return;
    }
    const feed = format === "rss" || format === "atom";
    const inLocation = feed
      ? sameSite(this.task.url, n.url) || entryAllowed(n.url, this.task.url, this.ref.grants)
      : entryAllowed(n.url, this.task.url, this.ref.grants);
    if (!inLocation) return void this.outOfLocation++;
    if (this.seen.has(n.url)) return;
    this.seen.add(n.url);
    const priority = feed ? FEED_ITEM_PRIORITY : entry.priority === undefined ? undefined : parseSitemapPriority(entry.priority);
    this.links.push({
      url: n.url,
      host: hostKeyOf(n.url),
      depth: this.task.depth + 1,
      sourceUrl: this.task.url,
      redirectHops: 0,
      ...(lastmod !== undefined ? { lastmod } : {}),
      ...(priority !== undefined ? { sitemapPriority: priority } : {}),
    });
    if (this.task.fetchMedia === true) this.addMedia(entry.media ?? []);
  }

  /** The media the image and video extensions name, as media links one level deeper (with --fetch-media). */
  private addMedia(media: readonly string[]): void {
    for (const raw of media) {
      const n = normalizeUrl(raw);
      if (!n.ok || this.seen.has(n.url)) continue;
      this.seen.add(n.url);
      this.media.push({
        url: n.url,
        host: hostKeyOf(n.url),
        depth: this.task.depth + 1,
        sourceUrl: this.task.url,
        redirectHops: 0,
        kind: "media",
      });
    }
  }

  summary(reader: SitemapReader): SitemapSummary {
    const summary: SitemapSummary = {
      format: reader.format ?? "not-a-sitemap",
      entries: this.links.length,
      outOfLocation: this.outOfLocation,
      invalid: this.invalid,
    };
    if (reader.limit) summary.limit = reader.limit;
    if (this.nested) summary.nestedIndex = true;
    return summary;
  }
}

/** A redirect's target, as a sitemap to read with the grants of the one named plus its directory. */
function redirectTarget(task: FetchTask, ref: SitemapRef, location: string | undefined): DiscoveredUrl | undefined {
  const n = location ? normalizeUrl(location, task.url) : undefined;
  if (!n?.ok) return undefined;
  const grants = [...new Set([...ref.grants, sitemapDirectory(task.url)])];
  return {
    url: n.url,
    host: hostKeyOf(n.url),
    depth: task.depth,
    sourceUrl: task.url,
    redirectHops: task.redirectHops + 1,
    sitemap: { ...ref, grants },
  };
}

/** The first `max` bytes of a stream, for the WARC record. */
class CappedCopy {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  /** Keeps what fits; false once the cap is passed. */
  add(chunk: Uint8Array): boolean {
    if (this.truncated) return false;
    const room = this.max - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.slice(0, room));
      this.size += Math.max(room, 0);
      this.truncated = true;
      return false;
    }
    this.chunks.push(chunk.slice());
    this.size += chunk.length;
    return true;
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}
