/**
 * For `url explain`: which server a URL's requests are capped under (the cap per server address), found as
 * the fetcher finds it (engine/fetch/http/server-key.ts: the address the connector would dial, resolved
 * with --hosts-file and the address policy, or through a proxy the host's registrable domain), with that
 * server's state in the gate (passes held, when its gap allows the next) and its figures on the per-address
 * board. One lookup per question, through a small cache of its own: an operator's question, not a hot path.
 * In `crawl` it asks the process's own gate and board; on a frontier node the region's Redis (the gate's
 * state) and the fetch nodes' records (whether they fetch through a proxy, their boards' rows).
 */
import { readFileSync } from "node:fs";
import type { PolicyConfig } from "../../core/config/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import type { AddressGate } from "../../core/ports/index.ts";
import { DnsCache, hostsFileLookup, parseHostsFile, serverKeyOf } from "./http/index.ts";

export interface ServerExplanation {
  /** `ip:…` or `domain:…`; "" when the name resolves to no address the policy allows. */
  server: string;
  note: string;
  /** The gate's state of the server, when it could say. */
  state?: { holders: number; nextAllowedAt: number };
  /** The server's row on the board, when it has one. */
  board?: BoardFigures;
}

/** A server's figures on a per-address board, as the explainer reads them. */
export type BoardFigures = { passes: number; waits: number; givenBack: number; longestWaitMs: number };

export interface ServerExplainerOptions {
  policy: Pick<PolicyConfig, "hostsFile" | "connectTimeoutMs"> & Parameters<typeof AddressPolicy.of>[0];
  /** Whether requests go through a proxy (which resolves names itself): then the server is the registrable domain. */
  proxied: () => boolean | Promise<boolean>;
  gate?: Pick<AddressGate, "inspect">;
  board?: { get(server: string): BoardFigures | undefined | Promise<BoardFigures | undefined> };
}

export class ServerExplainer {
  readonly #dns: DnsCache;
  readonly #addressPolicy: AddressPolicy;

  constructor(private readonly opts: ServerExplainerOptions) {
    const hostsFile = opts.policy.hostsFile;
    this.#dns = new DnsCache({
      maxEntries: 1_000,
      ...(hostsFile ? { lookup: hostsFileLookup(parseHostsFile(readFileSync(hostsFile, "utf8"), hostsFile)) } : {}),
    });
    this.#addressPolicy = AddressPolicy.of(opts.policy);
  }

  async explain(url: string): Promise<ServerExplanation> {
    const proxied = await this.opts.proxied();
    const server = await serverKeyOf(new URL(url), {
      proxied,
      dns: this.#dns,
      addressPolicy: this.#addressPolicy,
      connectTimeoutMs: this.opts.policy.connectTimeoutMs,
    });
    if (server === undefined) return { server: "", note: "the name resolves to no address the crawler may dial: nothing is held for it" };
    const note = proxied
      ? "through the proxy, which resolves names itself: capped by the host's registrable domain"
      : "the address the crawler dials for this name";
    const state = await this.opts.gate?.inspect?.(server);
    const row = await this.opts.board?.get(server);
    return {
      server,
      note,
      ...(state ? { state } : {}),
      ...(row ? { board: { passes: row.passes, waits: row.waits, givenBack: row.givenBack, longestWaitMs: row.longestWaitMs } } : {}),
    };
  }

  close(): void {
    this.#dns.close();
  }
}
