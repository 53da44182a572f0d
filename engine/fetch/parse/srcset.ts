/**
 * The URLs of a `srcset` attribute (`<img srcset>`, `<source srcset>`): each image candidate is a URL
 * followed by optional descriptors (`2x`, `480w`), candidates separated by commas. A URL may itself
 * contain commas (`/img,w_480/a.jpg`), so splitting on commas is wrong; this follows the HTML standard's
 * "parse a srcset attribute": skip whitespace and commas, take the run of non-whitespace as the URL (a
 * trailing comma on it ends the candidate), then skip the descriptors up to the next comma outside
 * parentheses. Descriptors are not validated: a crawler wants every URL the browser might pick. It runs in
 * the parse's hot path, so it compares character codes rather than one-character strings.
 */

const COMMA = 0x2c;
const OPEN = 0x28;
const CLOSE = 0x29;

/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** The candidate URLs of `value`, as written (entity-decoded by the parser), in order; never throws. */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    let c = value.charCodeAt(i);
    while (i < n && (isSpace(c) || c === COMMA)) c = value.charCodeAt(++i);
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(value.charCodeAt(i))) i++;
    let end = i;
    if (value.charCodeAt(end - 1) === COMMA) {
      // "a.jpg, b.jpg": the comma belongs to the list, and this candidate has no descriptors.
      while (end > start && value.charCodeAt(end - 1) === COMMA) end--;
      if (end > start) urls.push(value.slice(start, end));
      continue;
    }
    urls.push(value.slice(start, end));
    // Descriptors run to the next comma that is not inside parentheses (a future descriptor may hold one).
    let depth = 0;
    for (; i < n; i++) {
      c = value.charCodeAt(i);
      if (c === OPEN) depth++;
      else if (c === CLOSE && depth > 0) depth--;
      else if (c === COMMA && depth === 0) break;
    }
    i++;
  }
  return urls;
}
