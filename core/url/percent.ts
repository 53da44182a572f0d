/**
 * Percent-escape normalization for the path and query of a URL that the WHATWG parser has already
 * accepted (RFC 3986, section 6.2.2.2): an escape of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is
 * decoded, every other escape keeps its meaning but gets upper-case hex. One left-to-right pass, so an
 * escaped `%` (`%25`) is never decoded a second time and `%2541` stays `%2541`.
 */

const HEX_DIGITS = "0123456789ABCDEF";

/** 1 for the unreserved ASCII characters of RFC 3986, which mean the same escaped or not. */
const UNRESERVED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-._~]/.test(ch)) UNRESERVED[c] = 1;
}

/** The value of a hex digit's char code, or -1 (also for NaN, past the end of the string). */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/**
 * Decodes escapes of unreserved characters and upper-cases the hex of the others. A `%` that does not
 * start a valid escape (the WHATWG parser lets it through) is kept as it is; a decoded hex digit that
 * would turn such a stray `%` into a new escape stays encoded, or a second pass would decode it again
 * (`%%341` must not become `%41`, which the next pass would read as `A`).
 */
export function normalizePercentEscapes(text: string): string {
  let at = text.indexOf("%");
  if (at === -1) return text;
  let out = "";
  let copied = 0;
  // Position in `out` of the last stray `%`; far in the past when there is none.
  let strayAt = -3;
  while (at !== -1) {
    const high = hexValue(text.charCodeAt(at + 1));
    const low = high === -1 ? -1 : hexValue(text.charCodeAt(at + 2));
    if (low === -1) {
      out += text.slice(copied, at + 1);
      strayAt = out.length - 1;
      copied = at + 1;
      at = text.indexOf("%", copied);
      continue;
    }
    out += text.slice(copied, at);
    const code = high * 16 + low;
    if (UNRESERVED[code] === 1 && !completesStrayEscape(out, strayAt, code)) {
      out += String.fromCharCode(code);
    } else {
      out += "%" + HEX_DIGITS[high] + HEX_DIGITS[low];
    }
    copied = at + 3;
    at = text.indexOf("%", copied);
  }
  return out + text.slice(copied);
}

/** True when appending the character `code` to `out` would make the stray `%` at `strayAt` a valid escape. */
function completesStrayEscape(out: string, strayAt: number, code: number): boolean {
  if (hexValue(code) === -1) return false;
  const distance = out.length - strayAt;
  if (distance === 1) return true;
  return distance === 2 && hexValue(out.charCodeAt(strayAt + 1)) !== -1;
}
