/**
 * Rendering pages in headless Chromium, politely: the pool (pool.ts), one render (render-page.ts), every
 * request of the page answered by the crawler (request-router.ts, host-turn.ts, subresource-cache.ts), and
 * the Renderer port over them (renderer.ts). Runs on Bun (playwright-core); the policy of when to render is
 * core/render's.
 */
export { ChromiumRenderer, type ChromiumRendererOptions } from "./renderer.ts";
export { ChromiumMissingError, DEFAULT_CHROMIUM, hasChromium, RenderPool, type RenderPoolOptions, type RenderPoolStats } from "./pool.ts";
export { SubresourceCache } from "./subresource-cache.ts";
export { TRACKER_HOSTS } from "./request-router.ts";
export { checkChromium, chromiumRenderer, type RenderPolicy } from "./open.ts";
