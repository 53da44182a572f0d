/**
 * Turns a response body into a string for the parser. The encoding is chosen as browsers do, in order: a
 * byte-order mark, the charset of the Content-Type header, a `<meta charset>` (or http-equiv) in the first
 * 1024 bytes, and UTF-8 otherwise. Decoding is never fatal: bad bytes become U+FFFD, because a page with
 * one broken byte still has links worth reading. Labels follow the WHATWG Encoding standard, so
 * iso-8859-1 and latin1 decode as windows-1252, exactly as a browser would show them.
 */

import { mimeEssence } from "./content-type.ts";

const PRESCAN_BYTES = 1024;
const ONE_BYTE_PER_CHAR = new TextDecoder("latin1");
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([^\s"'\/;>]+)/i;
const HEADER_CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]+))/i;

export function decodeBody(body: Uint8Array, contentType?: string): string {
  const encoding = detectEncoding(body, contentType);
  return makeDecoder(encoding).decode(body);
}

/** The WHATWG encoding name `decodeBody` will use for this body. */
export function detectEncoding(body: Uint8Array, contentType?: string): string {
  const bom = encodingFromBom(body);
  if (bom) return bom;
  const fromHeader = supportedEncoding(charsetParam(contentType));
  if (fromHeader) return fromHeader;
  if (mimeEssence(contentType) === "" || mimeEssence(contentType).includes("html")) {
    const fromMeta = supportedEncoding(metaCharset(body));
    // HTML says a meta tag naming UTF-16 is wrong by construction (it was read as ASCII), so it means UTF-8.
    if (fromMeta) return fromMeta.startsWith("utf-16") ? "utf-8" : fromMeta;
  }
  return "utf-8";
}

function encodingFromBom(b: Uint8Array): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "utf-8";
  if (b[0] === 0xfe && b[1] === 0xff) return "utf-16be";
  if (b[0] === 0xff && b[1] === 0xfe) return "utf-16le";
  return undefined;
}

function charsetParam(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const m = HEADER_CHARSET.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

function metaCharset(body: Uint8Array): string | undefined {
  // Read the head as a one-byte encoding so every byte maps to one char and ASCII markup is found whatever
  // the encoding (the charset name itself is ASCII).
  const head = ONE_BYTE_PER_CHAR.decode(body.subarray(0, PRESCAN_BYTES));
  return META_CHARSET.exec(head)?.[1];
}

/** The canonical name of `label` if this runtime's TextDecoder knows it, else undefined. */
function supportedEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    const encoding = makeDecoder(label.trim()).encoding;
    // "replacement" exists to neuter dangerous labels (e.g. iso-2022-kr); decoding with it yields U+FFFD.
    return encoding === "replacement" ? undefined : encoding;
  } catch {
    return undefined;
  }
}

/**
 * bun-types narrows TextDecoder's label to three encodings, but the runtime (like Deno and browsers)
 * accepts every WHATWG label and throws RangeError on unknown ones, which is what we rely on.
 */
function makeDecoder(label: string): TextDecoder {
  type Label = ConstructorParameters<typeof TextDecoder>[0];
  return new TextDecoder(label as Label, { fatal: false });
}
