/**
 * Does this HTML look built by scripts? `--render auto` renders a page when it does. The rule reads the
 * page's shape, taken from the HTML as received (pageShape) and the parse the crawler makes anyway:
 *
 *   an empty app-shell root (`<div id="root|app|__next|___gatsby|svelte">` with nothing in it, or an
 *   Angular `<app-root>` left empty) and under 2,000 characters of visible text        -> script-built
 *   under 200 characters of visible text and at least one script                        -> script-built
 *   fewer links than scripts and under 1,000 characters of visible text                  -> script-built
 *   anything else                                                                        -> as received
 *
 * Measured in detector.test.ts on the shapes that matter (each written as such a site sends it): a
 * create-react-app shell, a Vue CLI shell, an Angular shell, a Next.js page rendered on the server (a
 * `__next` root full of text and links, ten scripts: not rendered), a blog article, a short static contact
 * page with no script, a landing page whose few links are swamped by tag-manager and widget scripts, and a
 * server-rendered shop listing with many scripts and more links. A server-rendered page with text and links
 * is never rendered, however many scripts it carries; a shell always is. The cost is one regular-expression
 * pass over the HTML, only in auto mode.
 */

export interface PageShape {
  /** Visible text, in characters (the parse's text, scripts and styles left out). */
  textChars: number;
  /** Links the parse found. */
  links: number;
  /** `<script>` elements, inline or not (JSON data blocks are scripts too: they feed one). */
  scripts: number;
  /** An app-shell root with nothing inside it. */
  emptyAppRoot: boolean;
}

const SCRIPT = /<script\b/gi;
const EMPTY_ROOT = /<div\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|___gatsby|svelte)["']?[^>]*>\s*<\/div>|<app-root\b[^>]*>\s*<\/app-root>/i;

/** The counts of `html` the rule needs that the link parse does not give: scripts and an empty root. */
export function scanShape(html: string): Pick<PageShape, "scripts" | "emptyAppRoot"> {
  let scripts = 0;
  SCRIPT.lastIndex = 0;
  while (SCRIPT.exec(html) !== null) scripts++;
  return { scripts, emptyAppRoot: EMPTY_ROOT.test(html) };
}

export type ShapeVerdict = "empty-app-root" | "little-text" | "scripts-over-links" | "as-received";

/** Which rule of the module comment the page meets ("as-received": none, not worth rendering). */
export function judgeShape(shape: PageShape): ShapeVerdict {
  if (shape.emptyAppRoot && shape.textChars < 2000) return "empty-app-root";
  if (shape.textChars < 200 && shape.scripts >= 1) return "little-text";
  if (shape.links < shape.scripts && shape.textChars < 1000) return "scripts-over-links";
  return "as-received";
}

export function looksScriptBuilt(shape: PageShape): boolean {
  return judgeShape(shape) !== "as-received";
}
