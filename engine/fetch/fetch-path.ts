/**
 * Builds the fetch path, the one way every process does: a fetch node (fetch-node/main.ts), each of
 * `crawl`'s fetch threads (embedded/fetch-thread/thread.ts) and `crawl` without threads (embedded/main.ts).
 * It is the HTTP fetcher with the policy's timeouts, body cap and address rules, the WARC writer, and the
 * FetchWorker over them and the content index. The content index is borrowed (the composition root chose Redis, SQLite or
 * memory and closes it); the fetcher and the WARC writer are built here and closed by `close()`.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { productToken } from "../../core/robots/index.ts";
import type { AddressGate, ContentIndex, Renderer } from "../../core/ports/index.ts";
import { readFileSync } from "node:fs";
import { HttpFetcher, hostsFileLookup, parseHostsFile } from "./http/index.ts";
import { FetchWorker } from "./pipeline/index.ts";
import { WarcWriter } from "./warc/index.ts";

export interface FetchPathOptions {
  policy: Pick<
    PolicyConfig,
    | "userAgent"
    | "connectTimeoutMs"
    | "keepAliveMs"
    | "responseTimeoutMs"
    | "maxBodyBytes"
    | "maxMediaBodyBytes"
    | "allowPrivateAddresses"
    | "allowAddresses"
    | "denyAddresses"
    | "denyHosts"
    | "gapFetchMultiplier"
    | "gapMarginMs"
    | "hostsFile"
    | "politenessKey"
  >;
  warcDir: string;
  /** WARC file name prefix; the node id, so files of several nodes never collide. */
  warcPrefix: string;
  /** Rolling by size and age, WET files, and the upload spool's directory and object location when uploading (WarcWriterOptions). */
  warc?: { maxFileBytes?: number; maxFileAgeMs?: number; finishedDir?: string; objectLocation?: string; wet?: boolean };
  proxyUrl?: string;
  /** Requests in flight at most (the node's task concurrency). */
  maxConcurrentRequests: number;
  content: ContentIndex;
  /**
   * Builds the renderer of pages whose tasks ask for it, over this path's fetcher (its requests are the
   * crawler's requests); absent: this path does not render. The path closes what it builds.
   */
  renderer?: (fetcher: HttpFetcher) => Renderer & { close(): Promise<void> };
  /** The cap per server address (borrowed: the composition root built it and closes it). Default: none. */
  addressGate?: AddressGate;
}

export interface FetchPath {
  worker: FetchWorker;
  fetcher: HttpFetcher;
  warc: WarcWriter;
  renderer?: Renderer & { close(): Promise<void> };
  /** Closes the fetcher (aborting requests still running), then flushes and closes the WARC file. */
  close(): Promise<void>;
}

export async function openFetchPath(opts: FetchPathOptions): Promise<FetchPath> {
  const warc = await WarcWriter.open({ dir: opts.warcDir, prefix: opts.warcPrefix, software: opts.policy.userAgent, ...opts.warc });
  const fetcher = new HttpFetcher({
    userAgent: opts.policy.userAgent,
    connectTimeoutMs: opts.policy.connectTimeoutMs,
    responseTimeoutMs: opts.policy.responseTimeoutMs,
    keepAliveTimeoutMs: opts.policy.keepAliveMs,
    maxBodyBytes: opts.policy.maxBodyBytes,
    proxyUrl: opts.proxyUrl,
    addressPolicy: AddressPolicy.of(opts.policy),
    maxConcurrentRequests: opts.maxConcurrentRequests,
    ...(opts.policy.hostsFile
      ? { lookup: hostsFileLookup(parseHostsFile(readFileSync(opts.policy.hostsFile, "utf8"), opts.policy.hostsFile)) }
      : {}),
    ...(opts.addressGate ? { addressGate: opts.addressGate, addressGapFromEnd: opts.policy.politenessKey === "ip" } : {}),
  });
  const renderer = opts.renderer?.(fetcher);
  const worker = new FetchWorker({
    fetcher,
    ...(renderer ? { renderer } : {}),
    maxBodyBytes: opts.policy.maxBodyBytes,
    content: opts.content,
    store: warc,
    agentToken: productToken(opts.policy.userAgent),
    gap: { multiplier: opts.policy.gapFetchMultiplier, marginMs: opts.policy.gapMarginMs },
    maxMediaBodyBytes: opts.policy.maxMediaBodyBytes,
    now: () => Date.now(),
    sleep: sleepAbortable,
  });
  return {
    worker,
    fetcher,
    warc,
    ...(renderer ? { renderer } : {}),
    async close() {
      try {
        await renderer?.close();
        await fetcher.close();
      } finally {
        await warc.close();
      }
    },
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleepAbortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
