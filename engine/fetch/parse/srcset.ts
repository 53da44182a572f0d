/**
 * The URLs of a `srcset` attribute (`<img srcset>`, `<source srcset>`): each image candidate is a URL
 * followed by optional descriptors (`2x`, `480w`), candidates separated by commas. A URL may itself
 * contain commas (`/img,w_480/a.jpg`), so splitting on commas is wrong; this follows the HTML standard's
 * "parse a srcset attribute": skip whitespace and commas, take the run of non-whitespace as the URL (a
 * trailing comma on it ends the candidate), then skip the descriptors up to the next comma outside
 * parentheses. Descriptors are not validated: a crawler wants every URL the browser might pick.
 */

const WHITESPACE = new Set([" ", "\t", "\n", "\f", "\r"]);

/** The candidate URLs of `value`, as written (entity-decoded by the parser), in order; never throws. */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && (WHITESPACE.has(value[i]!) || value[i] === ",")) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !WHITESPACE.has(value[i]!)) i++;
    let url = value.slice(start, i);
    if (url.endsWith(",")) {
      // "a.jpg, b.jpg": the comma belongs to the list, and this candidate has no descriptors.
      url = url.replace(/,+$/, "");
      if (url) urls.push(url);
      continue;
    }
    urls.push(url);
    // Descriptors run to the next comma that is not inside parentheses (a future descriptor may hold one).
    let depth = 0;
    while (i < n) {
      const c = value[i]!;
      if (c === "(") depth++;
      else if (c === ")" && depth > 0) depth--;
      else if (c === "," && depth === 0) break;
      i++;
    }
    i++;
  }
  return urls;
}
