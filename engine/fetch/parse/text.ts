/**
 * Gathers a page's visible text for SimHash: text chunks in document order, a space wherever a block
 * boundary falls (so `<p>a</p><p>b</p>` reads "a b", not "ab"), and a hard cap, counted on the text with its
 * whitespace collapsed, so a hostile multi-megabyte page cannot make fingerprinting cost more than a
 * normal one. Which elements are invisible (script, style …) is the extractor's call; this class only
 * accumulates.
 */

/** Elements that flow inside a line: entering or leaving them is not a word boundary. */
const INLINE_TAGS = new Set([
  "a",
  "abbr",
  "b",
  "bdi",
  "bdo",
  "cite",
  "code",
  "data",
  "dfn",
  "em",
  "font",
  "i",
  "kbd",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
]);

export function isInlineTag(name: string): boolean {
  return INLINE_TAGS.has(name);
}

/**
 * What collapses to one space: a run of two or more whitespace characters, or one that is not a plain
 * space. Replacing it gives what `/\s+/g` gives, without rewriting every single space between two words
 * (half the cost of a 25 KB page's text).
 */
const COLLAPSIBLE = /\s{2,}|[^\S ]/g;

export class TextCollector {
  private parts: string[] = [];
  private rawLength = 0;
  private full = false;

  constructor(private readonly maxChars: number) {}

  add(data: string): void {
    if (this.full) return;
    this.parts.push(data);
    this.rawLength += data.length;
    // Raw length overstates visible text (indentation), so compact before deciding the cap is reached.
    if (this.rawLength > this.maxChars) this.compact();
  }

  boundary(): void {
    if (!this.full && this.parts.length > 0) this.parts.push(" ");
  }

  /**
   * The text, trimmed, with its whitespace runs as found unless the cap needed compacting them: SimHash,
   * its only reader, splits words at any whitespace, so collapsing every run (a regex pass over the whole
   * text, ~85 µs of a 25 KB page) would change nothing it computes. `collapseWhitespace` gives the tidy form.
   */
  toString(): string {
    let text = this.parts.join("");
    // The one whitespace character that lower-casing skips over when it decides a final sigma (a format
    // character), so left in place it would change the words' hashes: it becomes a plain space.
    if (text.includes("\ufeff")) text = text.replaceAll("\ufeff", " ");
    this.parts = text ? [text] : [];
    return text.trim();
  }

  private compact(): void {
    // No trim here: a trailing space is the separator from text still to come.
    let text = this.parts.join("").replace(COLLAPSIBLE, " ");
    if (text === " ") text = "";
    if (text.length >= this.maxChars) {
      text = text.slice(0, this.maxChars);
      this.full = true;
    }
    this.parts = text ? [text] : [];
    this.rawLength = text.length;
  }
}

export function collapseWhitespace(s: string): string {
  return s.replace(COLLAPSIBLE, " ").trim();
}
