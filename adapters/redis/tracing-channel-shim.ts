/**
 * node-redis wraps every command in a `diagnostics_channel` TracingChannel and skips the wrapping only when
 * the channel says `hasSubscribers === false`. Bun 1.4's TracingChannel has no `hasSubscribers` at all, so
 * on Bun every command paid for a trace nobody listens to: its arguments copied into strings (`sanitizeArgs`:
 * for a seen-set script call, every offset and the packed binary argument), a context object, and a
 * `tracePromise` wrapper with its events. Measured in the cluster bench's profiles (bench/README.md, issue 26 item 1): 0.8 % of a
 * Bun fetch node's CPU and 0.3-0.4 % of a frontier node's. Deno and Node have the getter and were not affected.
 *
 * This gives Bun's TracingChannel the getter Node defines: true when any of its five channels (start, end,
 * asyncStart, asyncEnd, error) has a subscriber. A tracer that subscribes later is still served, since the
 * getter is asked at every command. Nothing changes where the runtime already has it.
 */
import diagnostics from "node:diagnostics_channel";

interface SubChannel {
  hasSubscribers?: boolean;
}

const PARTS = ["start", "end", "asyncStart", "asyncEnd", "error"] as const;

/** Adds `hasSubscribers` to the runtime's TracingChannel when it lacks it; idempotent. */
export function ensureTracingChannelHasSubscribers(): void {
  if (typeof diagnostics.tracingChannel !== "function") return;
  const sample = diagnostics.tracingChannel("crawler:probe");
  const proto = Object.getPrototypeOf(sample) as object | null;
  if (!proto || "hasSubscribers" in sample) return;
  Object.defineProperty(proto, "hasSubscribers", {
    configurable: true,
    get(this: Record<(typeof PARTS)[number], SubChannel | undefined>): boolean {
      // A part the runtime does not report on counts as listened to: tracing then stays as it was.
      return PARTS.some((part) => this[part]?.hasSubscribers !== false);
    },
  });
}

ensureTracingChannelHasSubscribers();
