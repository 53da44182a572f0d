/**
 * When a page is rendered in a headless browser (`--render`): `never` (the default: the HTML as received is
 * all that is parsed), `auto` (a page whose HTML looks built by scripts, see detector.ts, and every page of a
 * host where rendering found more links before, see host-memory.ts), `always` (every HTML page).
 */
export const RENDER_MODES = ["never", "auto", "always"] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

export function isRenderMode(value: unknown): value is RenderMode {
  return typeof value === "string" && (RENDER_MODES as readonly string[]).includes(value);
}
