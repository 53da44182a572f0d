/**
 * The parse step of the fetch path: decide whether a body is HTML, decode it to text, and extract links,
 * media, base URL, robots directives, title, canonical and visible text. Runtime-neutral (htmlparser2 and web
 * standard APIs only), so it runs the same on Bun and Deno.
 */

export {
  createPageExtractor,
  extractPage,
  type ExtractOptions,
  type ExtractedLink,
  type ExtractedMedia,
  type MediaKind,
  type ExtractedPage,
  type PageExtractor,
} from "./extract.ts";
export { parseXRobotsTag, type RobotsDirectives } from "./robots-directives.ts";
export { isHtmlContentType, mimeEssence } from "./content-type.ts";
export { decodeBody, detectEncoding } from "./decode.ts";
export { SitemapReader, type SitemapEntry, type SitemapFormat, type SitemapReaderLimits } from "./sitemap.ts";
