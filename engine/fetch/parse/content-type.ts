/**
 * Decides whether a response is worth handing to the HTML parser. The declared type wins when there is
 * one; only a missing or explicitly unknown type is sniffed, using the HTML signatures of the WHATWG
 * MIME Sniffing standard. Like browsers, we do not sniff text/plain or application/octet-stream as HTML:
 * a server that says "this is not HTML" is taken at its word.
 */

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const UNKNOWN_TYPES = new Set(["", "unknown/unknown", "application/unknown", "*/*"]);

/** Tag openings that identify HTML (upper-case ASCII; input is compared case-insensitively). */
const HTML_SIGNATURES = [
  "<!DOCTYPE HTML",
  "<HTML",
  "<HEAD",
  "<SCRIPT",
  "<IFRAME",
  "<H1",
  "<DIV",
  "<FONT",
  "<TABLE",
  "<A",
  "<STYLE",
  "<TITLE",
  "<B",
  "<BODY",
  "<BR",
  "<P",
  "<!--",
].map((s) => Uint8Array.from(s, (c) => c.charCodeAt(0)));

/** The media type without parameters, lower-cased: `Text/HTML; charset=x` → `text/html`. */
export function mimeEssence(contentType: string | undefined): string {
  if (!contentType) return "";
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

export function isHtmlContentType(ct: string | undefined, bodySniff?: Uint8Array): boolean {
  const essence = mimeEssence(ct);
  if (HTML_TYPES.has(essence)) return true;
  if (!UNKNOWN_TYPES.has(essence)) return false;
  return bodySniff !== undefined && looksLikeHtml(bodySniff);
}

/** WHATWG "HTML" pattern rows: optional leading whitespace, a signature, then a space or `>`. */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  let start = 0;
  // A UTF-8 BOM is not in the WHATWG table, but real pages carry one often enough to skip it.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  while (start < bytes.length && isWhitespace(bytes[start]!)) start++;
  for (const sig of HTML_SIGNATURES) {
    if (matchesAt(bytes, start, sig)) {
      const next = bytes[start + sig.length];
      if (next === 0x20 || next === 0x3e) return true;
    }
  }
  return false;
}

function matchesAt(bytes: Uint8Array, at: number, sig: Uint8Array): boolean {
  if (at + sig.length > bytes.length) return false;
  for (let i = 0; i < sig.length; i++) {
    let b = bytes[at + i]!;
    if (b >= 0x61 && b <= 0x7a) b -= 0x20; // ASCII lower → upper
    if (b !== sig[i]) return false;
  }
  return true;
}

function isWhitespace(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}
