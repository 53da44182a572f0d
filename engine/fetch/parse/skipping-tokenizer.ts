/**
 * htmlparser2's Tokenizer, skipping plain runs in one step. With entity decoding on (which the extractor
 * needs), htmlparser2 reads text and quoted attribute values one character at a time through its state
 * loop, looking for `<` or `&` (or the closing quote); a page's text is most of its characters, so that
 * loop was most of the parse. This subclass jumps straight to the next character that matters, found with
 * the runtime's native `indexOf`, and leaves every other decision to htmlparser2: the events are the same
 * (a test runs both over generated documents fed in random chunks). Measured on the test web's 25 KB pages:
 * see bench/parse.bench.ts.
 *
 * It overrides two of the Tokenizer's internal methods, so it is tied to htmlparser2's major version
 * (pinned in the lockfile); the differential test fails if an upgrade changes them.
 */
import { Tokenizer } from "htmlparser2";

const LT = 0x3c;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;

/** What this class touches of the Tokenizer, which its type declarations keep private. */
interface TokenizerInternals {
  buffer: string;
  offset: number;
  index: number;
  decodeEntities: boolean;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
}

const Base = Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => TokenizerInternals;

class Skipping extends Base {
  /** The next `<` and `&` at or after where they were last looked for in the current chunk (its length: none). */
  #nextLt = -1;
  #nextAmp = -1;
  /** Which chunk the two positions belong to: its offset and length (a new chunk always changes one). */
  #chunkOffset = -1;
  #chunkLength = -1;

  override stateText(c: number): void {
    if (c === LT || c === AMP || !this.decodeEntities) {
      super.stateText(c);
      return;
    }
    const from = this.index - this.offset + 1;
    const stop = Math.min(this.#next(LT, from), this.#next(AMP, from));
    // The state loop moves one past `index` before reading the next character: land just before the stop.
    this.index = stop + this.offset - 1;
  }

  override handleInAttributeValue(c: number, quote: number): void {
    if (c === quote || c === AMP || !this.decodeEntities) {
      super.handleInAttributeValue(c, quote);
      return;
    }
    const from = this.index - this.offset + 1;
    let close = this.buffer.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", from);
    if (close === -1) close = this.buffer.length;
    this.index = Math.min(close, this.#next(AMP, from)) + this.offset - 1;
  }

  /** Where the next `ch` is at or after `from` in the current chunk, or the chunk's length. */
  #next(ch: number, from: number): number {
    const buffer = this.buffer;
    if (this.offset !== this.#chunkOffset || buffer.length !== this.#chunkLength) {
      this.#chunkOffset = this.offset;
      this.#chunkLength = buffer.length;
      this.#nextLt = -1;
      this.#nextAmp = -1;
    }
    let at = ch === LT ? this.#nextLt : this.#nextAmp;
    if (at < from) {
      at = buffer.indexOf(ch === LT ? "<" : "&", from);
      if (at === -1) at = buffer.length;
      if (ch === LT) this.#nextLt = at;
      else this.#nextAmp = at;
    }
    return at;
  }
}

/** Pass as htmlparser2's `Tokenizer` option. */
export const SkippingTokenizer = Skipping as unknown as typeof Tokenizer;
