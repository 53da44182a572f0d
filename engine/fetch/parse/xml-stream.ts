/**
 * A streaming XML tokenizer with bounded memory, for sitemaps: it reports start tags (name and
 * attributes), end tags and text as chunks of a document arrive, and holds only the token it is in. What
 * a sitemap never needs is skipped as it streams past, never gathered: comments, processing
 * instructions, `<!DOCTYPE ...>`; CDATA sections are text. A tag is at most `maxTagChars` long (a
 * sitemap's longest, the root with its namespace declarations, is well under a kilobyte): a longer one
 * ends the document as malformed, so no input can make the tokenizer hold more than that and a few bytes
 * of lookahead. htmlparser2's tokenizer, by contrast, holds a whole comment until it closes, which let a
 * 50 MB sitemap of one comment sit in memory whole.
 *
 * Text comes raw (entities not decoded, possibly in several pieces); `decodeXmlText` decodes a piece
 * once the caller has gathered what it keeps. Not a validating parser: names are not checked and an
 * unbalanced document is simply reported as it comes.
 */

export interface XmlHandlers {
  open(name: string, attributes: Readonly<Record<string, string>>, selfClosing: boolean): void;
  close(name: string): void;
  text(raw: string): void;
  /** Whether text is wanted now; when it is not, text is skipped without being cut out. Default: always. */
  wantsText?(): boolean;
}

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

type State = "text" | "markup" | "tag" | "comment" | "cdata" | "pi" | "doctype";

/** What ends each skipped or text-like section. */
const TERMINATOR: Partial<Record<State, string>> = { comment: "-->", cdata: "]]>", pi: "?>" };

export class XmlStream {
  private state: State = "text";
  /** The token in progress: after `<` in markup state, the tag's characters in tag state. */
  private pending = "";
  private doctypeDepth = 0;
  /** Set when the document broke a bound (an over-long tag): nothing more is reported. */
  malformed = false;

  constructor(
    private readonly on: XmlHandlers,
    private readonly maxTagChars = 8_192,
  ) {}

  /** Characters held between calls (for tests: it never grows with the input). */
  get heldChars(): number {
    return this.pending.length;
  }

  write(chunk: string): void {
    let i = 0;
    while (i < chunk.length && !this.malformed) {
      switch (this.state) {
        case "text": {
          const lt = chunk.indexOf("<", i);
          const end = lt < 0 ? chunk.length : lt;
          if (end > i && (this.on.wantsText?.() ?? true)) this.on.text(chunk.slice(i, end));
          if (lt < 0) return;
          i = lt + 1;
          // The common case, a start or end tag whole in this chunk, without building anything else.
          const c = chunk.charCodeAt(i);
          const gt = c === 0x21 || c === 0x3f ? -1 : chunk.indexOf(">", i);
          if (gt >= 0 && gt - i <= this.maxTagChars) {
            this.endTag(chunk.slice(i, gt));
            i = gt + 1;
            break;
          }
          this.state = "markup";
          this.pending = "";
          break;
        }
        case "markup":
          i = this.markup(chunk, i);
          break;
        case "tag": {
          const gt = chunk.indexOf(">", i);
          const end = gt < 0 ? chunk.length : gt;
          this.pending += chunk.slice(i, end);
          if (this.pending.length > this.maxTagChars) {
            this.malformed = true;
            this.pending = "";
            return;
          }
          if (gt < 0) return;
          this.endTag(this.pending);
          this.pending = "";
          this.state = "text";
          i = gt + 1;
          break;
        }
        case "doctype":
          i = this.doctype(chunk, i);
          break;
        default:
          i = this.section(chunk, i);
      }
    }
  }

  /** After `<`: decides what kind of markup this is from its first characters (they may come split). */
  private markup(chunk: string, i: number): number {
    const held = this.pending.length;
    const take = Math.min(chunk.length - i, 8 - held);
    const head = this.pending + chunk.slice(i, i + take);
    // Where the chunk continues once the first `n` characters of `head` are consumed.
    const after = (n: number) => Math.max(i, i + n - held);
    const enter = (state: State, n: number): number => {
      this.state = state;
      this.pending = "";
      return after(n);
    };
    if (head.startsWith("!--")) return enter("comment", 3);
    if (head.startsWith("![CDATA[")) return enter("cdata", 8);
    if ("!--".startsWith(head) || "![CDATA[".startsWith(head)) {
      // Too few characters yet to tell (the chunk ended): hold them.
      this.pending = head;
      return chunk.length;
    }
    if (head.startsWith("?")) return enter("pi", 1);
    if (head.startsWith("!")) {
      this.doctypeDepth = 0;
      return enter("doctype", 1);
    }
    // A start or end tag; nothing was held (only `!` openings are), so it starts at `i`.
    this.state = "tag";
    this.pending = "";
    return i;
  }

  /** Comments, CDATA and processing instructions: up to their terminator, CDATA reported as text. */
  private section(chunk: string, i: number): number {
    const terminator = TERMINATOR[this.state]!;
    // `pending` holds the last characters of the previous chunk that could start the terminator.
    const text = this.pending + chunk.slice(i);
    const at = text.indexOf(terminator);
    if (at < 0) {
      const keep = Math.min(text.length, terminator.length - 1);
      if (this.state === "cdata" && text.length > keep) this.on.text(escapeCdata(text.slice(0, text.length - keep)));
      this.pending = text.slice(text.length - keep);
      return chunk.length;
    }
    if (this.state === "cdata" && at > 0) this.on.text(escapeCdata(text.slice(0, at)));
    const consumed = at + terminator.length - this.pending.length;
    this.pending = "";
    this.state = "text";
    return i + consumed;
  }

  /** `<!DOCTYPE ...>`, with an internal subset in brackets: skipped to its closing `>`. */
  private doctype(chunk: string, i: number): number {
    for (let j = i; j < chunk.length; j++) {
      const c = chunk.charCodeAt(j);
      if (c === 0x5b) this.doctypeDepth++;
      else if (c === 0x5d) this.doctypeDepth = Math.max(0, this.doctypeDepth - 1);
      else if (c === 0x3e && this.doctypeDepth === 0) {
        this.state = "text";
        return j + 1;
      }
    }
    return chunk.length;
  }

  private endTag(raw: string): void {
    if (raw.charCodeAt(0) === 0x2f) {
      const name = raw.slice(1).trim();
      if (name !== "") this.on.close(name);
      return;
    }
    const selfClosing = raw.charCodeAt(raw.length - 1) === 0x2f;
    const body = selfClosing ? raw.slice(0, -1) : raw;
    // Most tags are a bare name (`url`, `loc`): no attribute parsing for them.
    if (!/[\s=]/.test(body)) {
      if (body === "") return;
      this.on.open(body, NO_ATTRIBUTES, selfClosing);
      if (selfClosing) this.on.close(body);
      return;
    }
    const m = /^\s*([^\s/>]+)/.exec(body);
    if (!m) return;
    const name = m[1]!;
    const attributes: Record<string, string> = {};
    for (const a of body.slice(m[0].length).matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      attributes[a[1]!] = decodeXmlText(a[2] ?? a[3] ?? "");
    }
    this.on.open(name, attributes, selfClosing);
    if (selfClosing) this.on.close(name);
  }
}

/** CDATA content is literal: its `&` and `<` must survive `decodeXmlText` unchanged. */
function escapeCdata(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes XML's five named entities and numeric character references; anything else is left as written. */
export function decodeXmlText(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref] ?? whole;
  });
}
