/**
 * `url explain` on a frontier node: which server a URL's requests are capped under and its state, as the
 * region's fetch nodes see it. The fetch nodes resolve names (or send them through a proxy, which each says
 * in its node record); the frontier node finds the server the same way (engine/fetch ServerExplainer: its
 * own resolver and --hosts-file, or the registrable domain when the region's fetch nodes use a proxy), reads
 * the server's passes and gap from the region's Redis (the gate's keys, read only), and sums the rows the
 * fetch nodes' records give for it (their busiest servers). One list of node records and one Redis call per
 * question: an operator's question, not a hot path.
 */
import { inspectAddressGate, type RedisClient } from "../adapters/redis/index.ts";
import type { PolicyConfig } from "../core/config/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import { type BoardFigures, ServerExplainer } from "../engine/fetch/index.ts";

export interface FrontierServerExplainerOptions {
  policy: PolicyConfig;
  region: string;
  state: Pick<ClusterState, "listNodes">;
  /** The region's Redis, where the fetch nodes' gate lives; absent: the gate's state is not known here. */
  redis?: RedisClient;
}

export function frontierServerExplainer(opts: FrontierServerExplainerOptions): ServerExplainer {
  const fetchers = async () =>
    (await opts.state.listNodes()).filter((r) => r.role === "fetcher" && r.region === opts.region && r.status !== "left");
  return new ServerExplainer({
    policy: opts.policy,
    proxied: async () => (await fetchers()).some((r) => r.proxied === true),
    ...(opts.redis ? { gate: { inspect: (key: string) => inspectAddressGate(opts.redis!, key) } } : {}),
    board: {
      async get(server: string): Promise<BoardFigures | undefined> {
        let found: BoardFigures | undefined;
        for (const r of await fetchers()) {
          const row = r.addresses?.find((a) => a.server === server);
          if (!row) continue;
          found ??= { passes: 0, waits: 0, givenBack: 0, longestWaitMs: 0 };
          found.passes += row.passes;
          found.waits += row.waits;
          found.givenBack += row.givenBack;
          found.longestWaitMs = Math.max(found.longestWaitMs, row.longestWaitMs);
        }
        return found;
      },
    },
  });
}
