/**
 * Pulls what the crawler needs out of one HTML page in a single streaming pass with htmlparser2's
 * callback `Parser` (no DOM is built): the outgoing links, the media the page shows (images, video,
 * audio), the document base URL, meta robots, title, canonical, and the visible text for SimHash. Links and
 * media are collected raw during the pass and resolved only at the end, because HTML resolves every URL in
 * the document against the first `<base href>` wherever it appears, even after the link. The parser is forgiving by design: any byte soup yields a result and
 * nothing here throws.
 *
 * What htmlparser2 does that this relies on (each pinned by a test): tag and attribute names arrive
 * lower-cased, attribute entities arrive decoded, `<script>`, `<style>`, `<title>`, `<textarea>` and
 * `<iframe>` content arrives as raw text (so markup inside them is never mistaken for links), while
 * `<noscript>` and `<template>` content is parsed as markup.
 *
 * Media: `img` src and srcset, `picture`'s `source` srcset, `video` and `audio` src and their `source`
 * src, and `video` poster (an image). A `source src` outside video or audio names nothing a browser loads,
 * so it is skipped. Media inside `<noscript>` count (lazy-loading pages put the real `<img>` there).
 *
 * Choices: links inside `<noscript>` count (we are the client without scripts, and sites put real
 * navigation there for us), and so does its text. Links inside `<template>` count too, since they are the
 * site's own URLs that scripts will render, but its text does not, since nothing shows it as written.
 */

import { Parser } from "htmlparser2";
import { SkippingTokenizer } from "./skipping-tokenizer.ts";
import { parseBase, resolveHttpUrl } from "./resolve.ts";
import { srcsetUrls } from "./srcset.ts";
import { applyRobotsDirectives, type RobotsDirectives } from "./robots-directives.ts";
import { TextCollector, collapseWhitespace, isInlineTag } from "./text.ts";

export interface ExtractedLink {
  /** The attribute value as written, entity-decoded, not trimmed. */
  href: string;
  /**
   * Absolute http(s) URL resolved against the page's base URL, fragment removed. Undefined when the
   * value cannot be resolved or names another scheme (javascript:, mailto:, data:, tel: …): such links
   * are kept in the list, unresolved, so callers filter on this field alone.
   */
  resolved?: string;
  /** Element the link came from: a, area, link, iframe or frame. */
  tag: string;
  rel?: string;
  /** A `<link>`'s `type` attribute, lower-cased, when it has one (a feed: `application/rss+xml`, `application/atom+xml`). */
  type?: string;
  /** The link's own `rel` contains nofollow. A page-wide nofollow is reported in `metaRobots` instead. */
  nofollow: boolean;
}

/** What kind of media a URL names: the element decides (a video's poster is an image). */
export type MediaKind = "image" | "video" | "audio";

export interface ExtractedMedia {
  /** The URL as written (one srcset candidate, or the attribute value), entity-decoded. */
  src: string;
  /** Resolved like a link's (http(s) only, fragment removed); undefined for data:, blob: and garbage. */
  resolved?: string;
  kind: MediaKind;
  /** `element/@attribute` it came from: `img/@src`, `img/@srcset`, `source/@srcset`, `video/@poster`... */
  via: string;
}

export interface ExtractedPage {
  links: ExtractedLink[];
  /** Media the page names, in document order, repeats included (the caller normalizes and de-duplicates). */
  media: ExtractedMedia[];
  /** The page URL, or the first `<base href>` resolved against it when that is a valid http(s) URL. */
  baseUrl: string;
  metaRobots: RobotsDirectives;
  title?: string;
  /**
   * Visible text, trimmed; script, style, template and iframe content excluded; capped. Whitespace runs are
   * left as found (`collapseWhitespace` tidies them): SimHash reads any run as one word break.
   */
  text: string;
  /** First `<link rel=canonical>`, resolved like a link. */
  canonical?: string;
}

export interface ExtractOptions {
  /** Our robots.txt product token: `<meta name="<token>">` counts as well as `name="robots"`. */
  agentToken?: string;
  /** Cap on `text`, in UTF-16 code units. Default 200,000. */
  maxTextChars?: number;
  /** Cap on links kept per page, so a hostile page cannot flood the frontier. Default 10,000. */
  maxLinks?: number;
  /** Cap on media URLs kept per page, srcset candidates included. Default 2,000. */
  maxMedia?: number;
}

const DEFAULT_MAX_TEXT = 200_000;
const DEFAULT_MAX_LINKS = 10_000;
const DEFAULT_MAX_MEDIA = 2_000;
const MAX_TITLE = 1_000;

/**
 * Elements whose text a reader never sees. iframe content is fallback markup, shown only without iframe
 * support. `<head>` is not listed: htmlparser2 closes it only on an explicit `<body>`, so a page that
 * omits both tags would lose all its text.
 */
const INVISIBLE = new Set(["script", "style", "template", "iframe", "noembed", "noframes"]);

export interface PageExtractor {
  /** Feeds the next piece of the document. */
  write(chunk: string): void;
  /** Finishes the document and returns what was found; the extractor cannot be used afterwards. */
  end(): ExtractedPage;
}

export function extractPage(html: string, pageUrl: string, options?: ExtractOptions): ExtractedPage {
  const extractor = createPageExtractor(pageUrl, options);
  extractor.write(html);
  return extractor.end();
}

export function createPageExtractor(pageUrl: string, options: ExtractOptions = {}): PageExtractor {
  const agentToken = options.agentToken?.toLowerCase();
  const maxLinks = options.maxLinks ?? DEFAULT_MAX_LINKS;
  const text = new TextCollector(options.maxTextChars ?? DEFAULT_MAX_TEXT);
  const raw: ExtractedLink[] = [];
  const maxMedia = options.maxMedia ?? DEFAULT_MAX_MEDIA;
  const media: ExtractedMedia[] = [];
  /** The `picture`, `video` or `audio` element a `source` belongs to. */
  let mediaParent: "picture" | "video" | "audio" | undefined;
  const metaRobots: RobotsDirectives = { noindex: false, nofollow: false };
  let baseHref: string | undefined;
  let canonicalHref: string | undefined;
  let title: string | undefined;
  let titleParts: string[] | undefined;
  let invisibleDepth = 0;
  let svgDepth = 0;

  function addLink(href: string, tag: string, rel: string | undefined, relTokens: string[]): void {
    if (raw.length >= maxLinks) return;
    const link: ExtractedLink = { href, tag, nofollow: relTokens.includes("nofollow") };
    if (rel !== undefined) link.rel = rel;
    raw.push(link);
  }

  function addMedia(src: string, kind: MediaKind, via: string): void {
    if (media.length < maxMedia) media.push({ src, kind, via });
  }

  function addSrcset(srcset: string, via: string): void {
    for (const src of srcsetUrls(srcset)) addMedia(src, "image", via);
  }

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        switch (name) {
          case "img":
            if (attrs.src !== undefined) addMedia(attrs.src, "image", "img/@src");
            if (attrs.srcset !== undefined) addSrcset(attrs.srcset, "img/@srcset");
            break;
          case "picture":
            mediaParent = "picture";
            break;
          case "video":
          case "audio":
            mediaParent = name;
            if (attrs.src !== undefined) addMedia(attrs.src, name, `${name}/@src`);
            if (name === "video" && attrs.poster !== undefined) addMedia(attrs.poster, "image", "video/@poster");
            break;
          case "source":
            if (attrs.srcset !== undefined) addSrcset(attrs.srcset, "source/@srcset");
            if (attrs.src !== undefined && (mediaParent === "video" || mediaParent === "audio")) {
              addMedia(attrs.src, mediaParent, "source/@src");
            }
            break;
          case "a":
          case "area": {
            // SVG 1.1 anchors still use xlink:href; SVG 2 and HTML use href.
            const href = attrs.href ?? (svgDepth > 0 ? attrs["xlink:href"] : undefined);
            if (href !== undefined) addLink(href, name, attrs.rel, relTokensOf(attrs.rel));
            break;
          }
          case "link": {
            const rel = relTokensOf(attrs.rel);
            const href = attrs.href;
            if (href === undefined) break;
            if (rel.includes("canonical")) {
              canonicalHref ??= href;
              addLink(href, name, attrs.rel, rel);
            } else if (rel.includes("alternate") && !rel.includes("stylesheet")) {
              // "alternate stylesheet" is a CSS file, not another version of the page.
              addLink(href, name, attrs.rel, rel);
              if (attrs.type !== undefined) raw[raw.length - 1]!.type = attrs.type.trim().toLowerCase();
            }
            break;
          }
          case "iframe":
          case "frame":
            if (attrs.src !== undefined) addLink(attrs.src, name, undefined, []);
            break;
          case "base":
            if (baseHref === undefined && attrs.href !== undefined) baseHref = attrs.href;
            break;
          case "meta": {
            const metaName = attrs.name?.trim().toLowerCase();
            if (metaName === "robots" || (agentToken !== undefined && metaName === agentToken)) {
              applyRobotsDirectives(attrs.content ?? "", metaRobots);
            }
            break;
          }
          case "title":
            if (title === undefined && titleParts === undefined && svgDepth === 0) titleParts = [];
            break;
          case "svg":
            svgDepth++;
            break;
        }
        if (INVISIBLE.has(name)) invisibleDepth++;
        if (!isInlineTag(name)) text.boundary();
      },
      onclosetag(name) {
        // Implied closes can arrive for tags never opened (`<div x="` at EOF), hence the guards.
        if (INVISIBLE.has(name) && invisibleDepth > 0) invisibleDepth--;
        if (name === "svg" && svgDepth > 0) svgDepth--;
        if (name === mediaParent) mediaParent = undefined;
        if (name === "title" && titleParts !== undefined) {
          title = collapseWhitespace(titleParts.join("")).slice(0, MAX_TITLE);
          titleParts = undefined;
        }
        if (!isInlineTag(name)) text.boundary();
      },
      ontext(data) {
        if (titleParts !== undefined) titleParts.push(data);
        else if (invisibleDepth === 0) text.add(data);
      },
    },
    // Defaults spelled out because correctness depends on them: HTML mode, lower-cased names, decoded entities.
    { xmlMode: false, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, Tokenizer: SkippingTokenizer },
  );

  let ended = false;
  return {
    write(chunk) {
      if (!ended) parser.write(chunk);
    },
    end() {
      if (ended) throw new Error("createPageExtractor: end() called twice");
      ended = true;
      parser.end();
      // An unclosed <title> still names the page.
      if (titleParts !== undefined) title = collapseWhitespace(titleParts.join("")).slice(0, MAX_TITLE);

      const pageBase = parseBase(pageUrl);
      let base = pageBase;
      let baseUrl = pageUrl;
      if (baseHref !== undefined) {
        // A <base> that is not a usable http(s) URL is ignored rather than poisoning every link.
        const resolvedBase = resolveHttpUrl(baseHref, pageBase);
        if (resolvedBase !== undefined) {
          base = parseBase(resolvedBase);
          baseUrl = resolvedBase;
        }
      }
      for (const link of raw) {
        const resolved = resolveHttpUrl(link.href, base);
        if (resolved !== undefined) link.resolved = resolved;
      }
      for (const m of media) {
        const resolved = resolveHttpUrl(m.src, base);
        if (resolved !== undefined) m.resolved = resolved;
      }

      const page: ExtractedPage = { links: raw, media, baseUrl, metaRobots, text: text.toString() };
      if (title !== undefined) page.title = title;
      if (canonicalHref !== undefined) {
        const canonical = resolveHttpUrl(canonicalHref, base);
        if (canonical !== undefined) page.canonical = canonical;
      }
      return page;
    },
  };
}

const NO_TOKENS: string[] = [];

/** `rel` is a set of space-separated, case-insensitive keywords. */
function relTokensOf(rel: string | undefined): string[] {
  if (!rel) return NO_TOKENS;
  return rel.toLowerCase().split(/[\t\n\f\r ]+/);
}
