/**
 * The shape of a page as received (core/render detector.ts reads it): the visible text and links from the
 * parse the page task made anyway, the scripts and an empty app-shell root from one scan of the HTML.
 */
import { scanShape, type PageShape } from "../../../core/render/index.ts";
import type { ExtractedPage } from "../parse/index.ts";

export function pageShape(html: string, page: Pick<ExtractedPage, "text" | "links">): PageShape {
  return { textChars: page.text.trim().length, links: page.links.length, ...scanShape(html) };
}
