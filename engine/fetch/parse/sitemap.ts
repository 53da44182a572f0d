/**
 * Reads a sitemap as it arrives, chunk by chunk, so a 50 MB sitemap is never held whole: XML (a
 * `<urlset>` of `<url>` entries, or a `<sitemapindex>` of `<sitemap>` entries) through the bounded
 * streaming tokenizer of xml-stream.ts, or a text sitemap (one URL per line). The format is told from the first
 * character after a byte-order mark and blanks: `<` is XML, anything else text. Feeds are read the same way,
 * as the web's own lists of what is new: an RSS 2.0 `<rss><channel>` of `<item>`s (each its `<link>` and
 * `<pubDate>`, an RFC 822 date) or an Atom 1.0 `<feed>` of `<entry>`s (each its `<link href>` with no `rel`
 * or `rel="alternate"`, and `<updated>`, else `<published>`); an item's date becomes its entry's `lastmod`
 * (as W3C Datetime, in UTC). An XML document whose root is none of these (an HTML error page, RSS 1.0) is not
 * read on. A urlset's extensions are read for what they add: the news extension's `<news:publication_date>`
 * and the video extension's `<video:publication_date>` are an entry's date when it has no `<lastmod>`; the
 * image extension's `<image:loc>` and the video extension's `<video:content_loc>` and
 * `<video:thumbnail_loc>` are the entry's media (at most MAX_MEDIA_PER_ENTRY each).
 *
 * The protocol's limits are counted here: bytes fed (the decoded, uncompressed bytes) up to 50 MB, and
 * entries up to 50,000; past either, reading stops and `limit` says which. Only the sitemap's own
 * elements count: `<loc>` must be a direct child of `<url>`/`<sitemap>`, so an extension's
 * `<image:loc>` inside `<image:image>` is not an entry, and an element with a prefix counts only when
 * the prefix is bound to the sitemaps namespace. A `<loc>` or text line longer than 8 KiB is skipped
 * (counted as invalid by the caller: no crawler queues such a URL). Nothing here throws on bad input.
 */
import { decodeXmlText, XmlStream } from "./xml-stream.ts";
import { SITEMAP_MAX_BYTES, SITEMAP_MAX_ENTRIES, SITEMAP_MAX_LOC_CHARS } from "../../../core/sitemap/index.ts";

const SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9";

/** One entry as written: `loc` trimmed ("" when missing or too long), `lastmod` and `priority` raw. */
export interface SitemapEntry {
  loc: string;
  lastmod?: string;
  priority?: string;
  /**
   * A date to fall back on, read only while parsing: an Atom entry's `<published>` when it has no
   * `<updated>`, a news or video extension's publication date when the entry has no `<lastmod>`.
   */
  published?: string;
  /** Media URLs the image and video extensions name for the entry, as written. */
  media?: string[];
}

/**
 * A feed item's date as W3C Datetime in UTC, for `lastmod`: RSS writes RFC 822 (`Tue, 10 Jun 2003
 * 04:00:00 GMT`), Atom RFC 3339; either is read by the platform's date parser. No date, or one it cannot
 * read: undefined (no lastmod rather than a guess).
 */
function feedDate(text: string | undefined): string | undefined {
  if (text === undefined || text === "") return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

export type SitemapFormat = "urlset" | "index" | "text" | "rss" | "atom" | "not-a-sitemap";

export interface SitemapReaderLimits {
  maxBytes: number;
  maxEntries: number;
}

type Field = "loc" | "lastmod" | "priority" | "published" | "media";

/** The sitemap extensions read, by namespace: news and video for dates, image and video for media URLs. */
const EXTENSIONS: Readonly<Record<string, "news" | "image" | "video">> = {
  "http://www.google.com/schemas/sitemap-news/0.9": "news",
  "http://www.google.com/schemas/sitemap-image/1.1": "image",
  "http://www.google.com/schemas/sitemap-video/1.1": "video",
};
/** Media URLs kept per entry: the image extension allows 1,000 per URL; a page shows far fewer worth fetching. */
const MAX_MEDIA_PER_ENTRY = 100;

/** The Atom namespace: an Atom feed's elements are in it, as its default namespace or under a prefix. */
const ATOM_NS = "http://www.w3.org/2005/Atom";

export class SitemapReader {
  /** Undefined until the first meaningful character has been read. */
  format: SitemapFormat | undefined;
  /** Set when reading stopped at a limit. */
  limit: "entries" | "bytes" | undefined;
  bytes = 0;
  entries = 0;
  private stopped = false;
  private readonly decoder = new TextDecoder("utf-8");
  private readonly limits: SitemapReaderLimits;
  // XML state
  private xml: XmlStream | undefined;
  private level = 0;
  private readonly prefixes = new Set<string>();
  /** Prefix -> the sitemap extension it is bound to. */
  private readonly extensions = new Map<string, "news" | "image" | "video">();
  private entry: SitemapEntry | undefined;
  private field: Field | undefined;
  private text = "";
  // text state
  private line = "";
  private lineTooLong = false;
  private started = false;

  constructor(
    private readonly onEntry: (entry: SitemapEntry) => void,
    limits: Partial<SitemapReaderLimits> = {},
  ) {
    this.limits = { maxBytes: limits.maxBytes ?? SITEMAP_MAX_BYTES, maxEntries: limits.maxEntries ?? SITEMAP_MAX_ENTRIES };
  }

  /** Whether reading is over (a limit, or not a sitemap): the caller stops feeding and hangs up. */
  get done(): boolean {
    return this.stopped;
  }

  /** Feeds the next decoded bytes. */
  write(chunk: Uint8Array): void {
    if (this.stopped) return;
    const room = this.limits.maxBytes - this.bytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.bytes += part.length;
    this.feed(this.decoder.decode(part, { stream: true }));
    if (chunk.length > room && !this.stopped) {
      this.limit = "bytes";
      this.stop();
    }
  }

  /** The body ended (or was cut): flushes a last text line. */
  end(): void {
    if (!this.stopped) this.feed(this.decoder.decode());
    if (this.format === "text" && !this.stopped) this.endLine();
    this.format ??= "not-a-sitemap";
    this.stopped = true;
  }

  private stop(): void {
    this.stopped = true;
  }

  private feed(text: string): void {
    if (text === "" || this.stopped) return;
    if (!this.started) {
      const trimmed = text.replace(/^\uFEFF?\s*/, "");
      if (trimmed === "") return;
      this.started = true;
      text = trimmed;
      if (text.startsWith("<")) this.xml = this.newXmlParser();
      else this.format = "text";
    }
    if (this.xml) {
      this.xml.write(text);
      if (this.xml.malformed) this.stop();
    } else this.feedText(text);
  }

  // ---- text sitemaps ------------------------------------------------------------------------------

  private feedText(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      const piece = text.slice(start, nl < 0 ? text.length : nl);
      if (!this.lineTooLong) {
        if (this.line.length + piece.length > SITEMAP_MAX_LOC_CHARS) {
          this.lineTooLong = true;
          this.line = "";
        } else this.line += piece;
      }
      if (nl < 0) return;
      this.endLine();
      if (this.stopped) return;
      start = nl + 1;
    }
  }

  private endLine(): void {
    const loc = this.lineTooLong ? "" : this.line.trim();
    const skip = !this.lineTooLong && loc === "";
    this.line = "";
    this.lineTooLong = false;
    if (!skip) this.emit({ loc });
  }

  // ---- XML sitemaps -------------------------------------------------------------------------------

  private newXmlParser(): XmlStream {
    return new XmlStream({
      open: (name, attribs) => this.open(name, attribs),
      text: (raw) => {
        if (this.text.length <= SITEMAP_MAX_LOC_CHARS) this.text += raw;
      },
      wantsText: () => this.field !== undefined,
      close: (name) => this.close(name),
    });
  }

  private open(name: string, attribs: Readonly<Record<string, string>>): void {
    this.level++;
    if (this.stopped) return;
    if (this.level === 1) {
      for (const [key, value] of Object.entries(attribs)) {
        if (!key.startsWith("xmlns:")) continue;
        const ns = value.trim();
        if (ns === SITEMAP_NS || ns === ATOM_NS) this.prefixes.add(key.slice(6));
        const extension = EXTENSIONS[ns];
        if (extension) this.extensions.set(key.slice(6), extension);
      }
      const root = this.ownName(name);
      if (root === "urlset") this.format = "urlset";
      else if (root === "sitemapindex") this.format = "index";
      else if (root === "rss") this.format = "rss";
      else if (root === "feed") this.format = "atom";
      else {
        this.format = "not-a-sitemap";
        this.stop();
      }
      return;
    }
    const own = this.ownName(name);
    if (this.format === "rss" || this.format === "atom") return this.openFeedElement(own, attribs);
    if (this.level === 2 && own === (this.format === "index" ? "sitemap" : "url")) {
      this.entry = { loc: "" };
    } else if (this.level === 3 && this.entry && (own === "loc" || own === "lastmod" || (own === "priority" && this.format === "urlset"))) {
      this.field = own;
      this.text = "";
    } else if (this.level === 4 && this.entry && this.format === "urlset") {
      const field = this.extensionField(name);
      if (field !== undefined) {
        this.field = field;
        this.text = "";
      }
    }
  }

  /** What an extension's element inside `<url>` (`news:news`, `image:image`, `video:video`) gives, if anything. */
  private extensionField(name: string): Field | undefined {
    const colon = name.indexOf(":");
    if (colon < 0) return undefined;
    const extension = this.extensions.get(name.slice(0, colon));
    const local = name.slice(colon + 1).toLowerCase();
    if (extension === "news" || extension === "video") {
      if (local === "publication_date") return "published";
    }
    if ((extension === "image" && local === "loc") || (extension === "video" && (local === "content_loc" || local === "thumbnail_loc"))) {
      return (this.entry?.media?.length ?? 0) < MAX_MEDIA_PER_ENTRY ? "media" : undefined;
    }
    return undefined;
  }

  /**
   * RSS: `rss > channel > item > link | pubDate`; Atom: `feed > entry > link[href] | updated | published`.
   * An item's link is its text (RSS) or the `href` of its first alternate link (Atom).
   */
  private openFeedElement(own: string | undefined, attribs: Readonly<Record<string, string>>): void {
    const rss = this.format === "rss";
    const itemLevel = rss ? 3 : 2;
    if (this.level === itemLevel && own === (rss ? "item" : "entry")) {
      this.entry = { loc: "" };
      return;
    }
    if (this.level !== itemLevel + 1 || !this.entry) return;
    if (rss && (own === "link" || own === "pubdate")) {
      this.field = own === "link" ? "loc" : "lastmod";
      this.text = "";
    } else if (!rss && own === "link" && this.entry.loc === "") {
      const rel = (attribs.rel ?? "alternate").trim().toLowerCase();
      const href = decodeXmlText(attribs.href ?? "").trim();
      if (rel === "alternate" && href.length <= SITEMAP_MAX_LOC_CHARS) this.entry.loc = href;
    } else if (!rss && (own === "updated" || own === "published")) {
      this.field = own === "updated" ? "lastmod" : "published";
      this.text = "";
    }
  }

  private close(name: string): void {
    const level = this.level--;
    if (this.stopped) return;
    if (this.format === "rss" || this.format === "atom") return this.closeFeedElement(level);
    if ((level === 3 || level === 4) && this.field !== undefined && this.entry) {
      const value = this.text.length > SITEMAP_MAX_LOC_CHARS ? "x".repeat(SITEMAP_MAX_LOC_CHARS + 1) : decodeXmlText(this.text).trim();
      if (this.field === "loc") this.entry.loc = value.length > SITEMAP_MAX_LOC_CHARS ? "" : value;
      else if (this.field === "media") {
        if (value !== "" && value.length <= SITEMAP_MAX_LOC_CHARS) (this.entry.media ??= []).push(value);
      } else this.entry[this.field as "lastmod" | "priority" | "published"] = value;
      this.field = undefined;
      this.text = "";
    } else if (level === 2 && this.entry && this.ownName(name) !== undefined) {
      const { published, ...entry } = this.entry;
      this.entry = undefined;
      if (entry.lastmod === undefined && published !== undefined) {
        const date = feedDate(published);
        if (date !== undefined) entry.lastmod = date;
      }
      this.emit(entry);
    }
  }

  private closeFeedElement(level: number): void {
    const itemLevel = this.format === "rss" ? 3 : 2;
    if (level === itemLevel + 1 && this.field !== undefined && this.entry) {
      const value = this.text.length > SITEMAP_MAX_LOC_CHARS ? "" : decodeXmlText(this.text).trim();
      if (this.field === "loc") this.entry.loc = value;
      else if (this.field !== "media") this.entry[this.field] = value;
      this.field = undefined;
      this.text = "";
    } else if (level === itemLevel && this.entry) {
      const { loc, lastmod, published } = this.entry;
      this.entry = undefined;
      const date = feedDate(lastmod ?? published);
      this.emit(date === undefined ? { loc } : { loc, lastmod: date });
    }
  }

  /** The local name of a sitemap element (lower-cased), or undefined for another namespace's element. */
  private ownName(name: string): string | undefined {
    const colon = name.indexOf(":");
    if (colon < 0) return name.toLowerCase();
    return this.prefixes.has(name.slice(0, colon)) ? name.slice(colon + 1).toLowerCase() : undefined;
  }

  private emit(entry: SitemapEntry): void {
    if (this.entries >= this.limits.maxEntries) {
      this.limit = "entries";
      this.stop();
      return;
    }
    this.entries++;
    this.onEntry(entry);
  }
}
