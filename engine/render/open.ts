/**
 * What a process that renders builds from its policy: whether it renders at all (`--render` or a rule
 * other than never), and the renderer over its fetch path's fetcher (a pool of `--render-pool` pages in one
 * Chromium, the render deadline, the memory cap, screenshots, the gap rule for the page's own requests, the
 * address policy for every request). A missing Chromium is said at start, not at the first render.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import type { Fetcher } from "../../core/ports/index.ts";
import { preciseNow } from "../../core/politeness/index.ts";
import { renderingWanted } from "../../core/render/index.ts";
import { ChromiumMissingError, hasChromium, RenderPool, type RenderPoolOptions } from "./pool.ts";
import { ChromiumRenderer } from "./renderer.ts";

export type RenderPolicy = Pick<
  PolicyConfig,
  | "render"
  | "renderRules"
  | "renderPool"
  | "renderTimeoutMs"
  | "renderMemoryCapBytes"
  | "renderScreenshots"
  | "chromiumPath"
  | "userAgent"
  | "gapFetchMultiplier"
  | "gapMarginMs"
  | "allowPrivateAddresses"
  | "allowAddresses"
  | "denyAddresses"
  | "denyHosts"
>;

/** Throws ChromiumMissingError when rendering is wanted and the policy's Chromium is not there. */
export function checkChromium(policy: Pick<PolicyConfig, "render" | "renderRules" | "chromiumPath">): void {
  if (renderingWanted(policy) && !hasChromium(policy.chromiumPath)) throw new ChromiumMissingError(policy.chromiumPath);
}

/** The renderer factory a fetch path takes (engine/fetch fetch-path.ts `renderer`). */
export function chromiumRenderer(policy: RenderPolicy, onEvent?: RenderPoolOptions["onEvent"]): (fetcher: Fetcher) => ChromiumRenderer {
  return (fetcher) =>
    new ChromiumRenderer({
      pool: new RenderPool({
        size: policy.renderPool,
        executablePath: policy.chromiumPath,
        memoryCapBytes: policy.renderMemoryCapBytes,
        ...(onEvent ? { onEvent } : {}),
      }),
      fetcher,
      addresses: AddressPolicy.of(policy),
      userAgent: policy.userAgent,
      deadlineMs: policy.renderTimeoutMs,
      settleMs: 500,
      screenshots: policy.renderScreenshots,
      gap: { multiplier: policy.gapFetchMultiplier, marginMs: policy.gapMarginMs },
      now: preciseNow,
      sleep: (ms, signal) =>
        new Promise((resolve, reject) => {
          if (signal?.aborted) return reject(signal.reason);
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
        }),
    });
}
