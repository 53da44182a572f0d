/**
 * URL normalization, the face of `core/url`: `normalizeUrl` is the one function every URL passes through
 * when it enters the crawler (seeds, links, redirects), and `isHomePage` reads the result for priority.
 * Pure and runtime-neutral: only the web-standard `URL` class is used.
 */
export { normalizeUrl, MAX_URL_LENGTH } from "./normalize.ts";
export type { NormalizeResult } from "./normalize.ts";
export { isHomePage } from "./home-page.ts";
export { hostKeyOf, originOf } from "./host-key.ts";
export { isNotAUrl } from "./not-a-url.ts";
