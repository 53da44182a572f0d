/**
 * Rendering policy (pure): when a page is rendered in a headless browser (`--render`, per-host and URL
 * rules), how its HTML is judged script-built, and what a host's frontier remembers of past renders.
 * The browser itself lives in engine/render.
 */
export { judgeShape, looksScriptBuilt, scanShape, type PageShape, type ShapeVerdict } from "./detector.ts";
export { describeRenderMemory, NO_RENDER_MEMORY, rememberRender, renderAsk, type RenderMemory } from "./host-memory.ts";
export { isRenderMode, RENDER_MODES, type RenderMode } from "./mode.ts";
export { renderingWanted } from "./wanted.ts";
export { formatRenderRule, parseRenderRule, RenderRules, type RenderRule } from "./rules.ts";
