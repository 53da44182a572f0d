/**
 * What a host's frontier remembers about rendering its pages, so `--render auto` learns per host: one
 * integer 0..255 kept in the host's persisted state (a byte of JSON, travelling with the host on handoff):
 * the low four bits count renders, the high four bits the renders that found links the HTML as received
 * did not have. Both halve when the count reaches 15, so recent renders weigh most and it never overflows.
 *
 *   some renders found more links            -> render every HTML page of the host (as `always`)
 *   4 or more renders, none found more        -> stop rendering the host's pages (as `never`)
 *   otherwise                                 -> the detector decides, page by page (detector.ts)
 */
import type { RenderMode } from "./mode.ts";

export type RenderMemory = number;
export const NO_RENDER_MEMORY: RenderMemory = 0;

const renders = (m: RenderMemory) => m & 0x0f;
const gains = (m: RenderMemory) => (m >> 4) & 0x0f;

/** The memory after one render that found `extraLinks` links more than the HTML as received. */
export function rememberRender(memory: RenderMemory, extraLinks: number): RenderMemory {
  let r = renders(memory) + 1;
  let g = gains(memory) + (extraLinks > 0 ? 1 : 0);
  if (r >= 15) {
    r >>= 1;
    g >>= 1;
  }
  return (Math.min(g, r) << 4) | r;
}

/**
 * What a task asks of the fetch path for a page whose rule says `mode`: `always` (render it), `auto` (render
 * it when its HTML looks script-built), or undefined (do not render).
 */
export function renderAsk(mode: RenderMode, memory: RenderMemory): "always" | "auto" | undefined {
  if (mode === "never") return undefined;
  if (mode === "always") return "always";
  if (gains(memory) > 0) return "always";
  if (renders(memory) >= 4) return undefined;
  return "auto";
}

/** For `inspect host`: renders counted and those that found more links. */
export function describeRenderMemory(memory: RenderMemory): { renders: number; foundMore: number } {
  return { renders: renders(memory), foundMore: gains(memory) };
}
