/**
 * The cluster commands of crawlctl. Each talks to the coordinator over gRPC only (adapters/grpc's
 * CoordinatorLeaderClient: given several addresses, the one holding the lease answers), prints a table by
 * default or JSON with --json, and turns an unreachable or refusing coordinator into one clear line.
 */
import { CoordinatorLeaderClient } from "../../adapters/grpc/index.ts";
import { isApiError, UnavailableError } from "../../core/errors/index.ts";
import { NodeRole, NodeState, type NodeInfo } from "../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import type { Capture, HostInfo, UrlExplanation } from "../../proto/gen/crawler/frontier/v1/frontier.ts";
import { type CliIo, UsageError } from "../io.ts";
import { ago, ranges, table, toJson, until } from "./format.ts";
import { parseClusterOptions, type ClusterOptions } from "./options.ts";

export type Env = Readonly<Record<string, string | undefined>>;

export async function withClient(opts: ClusterOptions, io: CliIo, fn: (c: CoordinatorLeaderClient) => Promise<number>): Promise<number> {
  const client = new CoordinatorLeaderClient(opts.coordinators, {
    token: opts.token,
    deadlineMs: 10_000,
    tls: opts.tlsCa ? { ca: opts.tlsCa } : undefined,
  });
  try {
    return await fn(client);
  } catch (error) {
    if (isApiError(error)) {
      io.err(`crawlctl: ${error.message}\n`);
      return error instanceof UnavailableError ? 3 : 1;
    }
    throw error;
  } finally {
    client.close();
  }
}

export function statusCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    return withClient(opts, io, async (c) => {
      for (;;) {
        const s = await c.getStatus();
        if (opts.json) io.out(toJson(s));
        else {
          const errors = Object.entries(s.counters)
            .filter(([k]) => /^fetch\.(network-error|skipped)\./.test(k) || /^fetch\.status\.[45]/.test(k))
            .map(([k, v]) => `${k.replace(/^fetch\./, "")} ${v}`)
            .join(", ");
          io.out(
            `${opts.watch ? "\x1b[H\x1b[2J" : ""}cluster status at ${new Date(Number(s.atMs)).toISOString()}\n` +
              table(
                ["pages fetched", "pages/s", "queued", "in flight", "frontier nodes", "fetch nodes", "errors"],
                [
                  [
                    String(s.pagesFetched),
                    s.pagesPerSecond.toFixed(1),
                    String(s.queued),
                    String(s.inFlight),
                    s.frontierNodes,
                    s.fetchNodes,
                    String(s.errors),
                  ],
                ],
              ) +
              (errors ? `errors by kind: ${errors}\n` : ""),
          );
        }
        if (!opts.watch) return 0;
        await new Promise((r) => setTimeout(r, opts.intervalS * 1000));
      }
    });
  };
}

export function nodesCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    return withClient(opts, io, async (c) => {
      const { nodes } = await c.listNodes();
      if (opts.json) {
        io.out(toJson(nodes));
        return 0;
      }
      const now = Date.now();
      io.out(
        table(
          ["ID", "ROLE", "REGION", "RUNTIME", "STATE", "PARTITIONS", "ADDRESS", "HEARTBEAT"],
          nodes.map((n) => [
            n.id,
            roleName(n.role),
            n.region,
            n.runtime,
            stateName(n.state),
            partitionsCell(n),
            n.grpcAddress || n.httpAddress || "-",
            ago(n.lastHeartbeatMs, now),
          ]),
        ),
      );
      return 0;
    });
  };
}

export function ringCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    return withClient(opts, io, async (c) => {
      const ring = await c.getRing();
      if (opts.json) {
        io.out(toJson(ring));
        return 0;
      }
      const rows: Array<Array<string | number>> = [];
      for (const region of ring.regions) {
        const byOwner = new Map<string, number[]>();
        const pending = new Map<string, number>();
        for (const a of region.assignments) {
          const owner = a.owner || "(none)";
          byOwner.set(owner, [...(byOwner.get(owner) ?? []), a.partition]);
          if (a.previousOwner) pending.set(owner, (pending.get(owner) ?? 0) + 1);
        }
        for (const [owner, ps] of [...byOwner].sort()) rows.push([region.region, owner, ps.length, ranges(ps), pending.get(owner) ?? 0]);
      }
      io.out(`ring epoch ${ring.epoch}, ${ring.partitions} partitions per region\n`);
      io.out(table(["REGION", "OWNER", "COUNT", "PARTITIONS", "HANDOFFS PENDING"], rows));
      return 0;
    });
  };
}

export function hostShowCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const host = single(opts.rest, "HOST");
    return withClient(opts, io, async (c) => {
      const { host: info } = await c.getHost(host);
      printHost(info, opts, io);
      return 0;
    });
  };
}

export function hostPauseCommand(env: Env, paused: boolean) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const host = single(opts.rest, "HOST");
    return withClient(opts, io, async (c) => {
      const { host: info } = await c.setHostPaused(host, paused);
      if (!opts.json) io.out(`${host} ${paused ? "paused" : "resumed"}\n`);
      printHost(info, opts, io);
      return 0;
    });
  };
}

export function urlExplainCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const url = single(opts.rest, "URL");
    return withClient(opts, io, async (c) => {
      const { explanation } = await c.explainUrl(url);
      if (opts.json) {
        io.out(toJson(explanation));
        return 0;
      }
      io.out(explainText(explanation));
      return 0;
    });
  };
}

export function urlCapturesCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env, { valued: ["--limit"] });
    const url = single(opts.rest, "URL");
    const limit = Number(opts.flags.get("--limit") ?? 0);
    return withClient(opts, io, async (c) => {
      const answer = await c.listCaptures(url, limit);
      if (opts.json) {
        io.out(toJson(answer));
        return 0;
      }
      io.out(capturesText(answer.url, answer.captures));
      return 0;
    });
  };
}

export function nodeDrainCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const id = single(opts.rest, "NODE-ID");
    return withClient(opts, io, async (c) => {
      const r = await c.drainNode(id);
      if (opts.json) io.out(toJson(r));
      else io.out(`${r.nodeId}: ${stateName(r.state)}\n`);
      return 0;
    });
  };
}

/** A frontier node's partitions as `count (ranges)`; "-" for other roles and for a dead or departed node, which serves none. */
function partitionsCell(n: NodeInfo): string {
  if (n.role !== NodeRole.NODE_ROLE_FRONTIER || n.state === NodeState.NODE_STATE_DEAD || n.state === NodeState.NODE_STATE_LEFT) return "-";
  return n.partitions.length > 0 ? `${n.partitions.length} (${ranges(n.partitions)})` : "0";
}

function single(rest: string[], what: string): string {
  if (rest.length !== 1) throw new UsageError(`expected exactly one ${what}, got ${rest.length}`);
  return rest[0]!;
}

function printHost(info: HostInfo | undefined, opts: ClusterOptions, io: CliIo): void {
  if (!info) return;
  if (opts.json) return void io.out(toJson(info));
  const now = Date.now();
  const rows: Array<[string, string]> = [
    ["host", info.host],
    ["partition", `${info.partition} (region ${info.region}, owner ${info.owner || "-"})`],
    ["queued", String(info.queued)],
    ["in flight", info.inFlight ? "yes" : "no"],
    ["paused", info.paused ? "yes" : "no"],
    ["next fetch", until(info.nextAllowedAtMs, now)],
    ["gap", `${info.gapMs} ms${info.minGapOverrideMs ? ` (min gap override ${info.minGapOverrideMs} ms)` : ""}`],
    [
      "robots.txt",
      `${info.robotsVerdict}${info.robotsExpiresAtMs ? `, refetch ${until(info.robotsExpiresAtMs, now)}` : ""}${info.crawlDelayMs ? `, crawl-delay ${info.crawlDelayMs} ms` : ""}`,
    ],
    ["fetches", `${info.fetches} (${info.failures} failed, ${info.throttles} throttled, ${info.pagesToday} today)`],
    ["last", `${info.lastStatus || "-"}${info.lastError ? ` ${info.lastError}` : ""}`],
  ];
  io.out(rows.map(([k, v]) => `${k.padEnd(11)} ${v}`).join("\n") + "\n");
}

function explainText(e: UrlExplanation | undefined): string {
  if (!e) return "no explanation\n";
  if (!e.normalized) return `${e.input}\n  rejected: ${e.rejectedReason}\n`;
  const rows: Array<[string, string]> = [
    ["normalized", e.normalized],
    ["host", `${e.host} (partition ${e.partition}, region ${e.region}, owner ${e.owner || "-"})`],
    ["seen", e.seen ? "yes" : "no"],
    ["robots", `${e.robots}${e.robotsRule ? ` (${e.robotsRule})` : ""}`],
    ["state", `${e.state}${e.lastStatus ? `, last status ${e.lastStatus}` : ""}${e.failures ? `, ${e.failures} failures` : ""}`],
  ];
  if (Number(e.lastFetchedAtMs)) rows.push(["fetched", new Date(Number(e.lastFetchedAtMs)).toISOString()]);
  if (Number(e.nextFetchAtMs)) rows.push(["next fetch", new Date(Number(e.nextFetchAtMs)).toISOString()]);
  if (e.addressRefusal) rows.push(["refused", e.addressRefusal]);
  if (e.scopeRejection) rows.push(["scope", e.scopeRejection]);
  if (e.sitemap) rows.push(["sitemap", e.sitemap]);
  if (e.foundByRender) rows.push(["found", "by rendering (only in a rendered page's DOM)"]);
  if (e.trap) rows.push(["trap", e.trap]);
  if (e.maxPerAddress) rows.push(["server cap", `${e.maxPerAddress} at once, ${e.addressGapMs} ms apart, per server address`]);
  if (e.server || e.serverNote) rows.push(["server", serverText(e)]);
  if (e.note) rows.push(["note", e.note]);
  return `${e.input}\n${rows.map(([k, v]) => `  ${k.padEnd(10)} ${v}`).join("\n")}\n`;
}

/** The server a URL is capped under and its state in the gate, as far as the answering process knows. */
function serverText(e: UrlExplanation): string {
  if (!e.server) return e.serverNote;
  const parts = [`${e.server} (${e.serverNote})`];
  if (e.serverStateKnown) {
    const next = Number(e.serverNextAllowedAtMs);
    parts.push(`${e.serverHolders} in flight, next pass ${next ? new Date(next).toISOString() : "now"}`);
  }
  if (e.serverPasses || e.serverGivenBack)
    parts.push(
      `${e.serverPasses} passes, ${e.serverWaits} of them waited, ${e.serverGivenBack} given back without one, longest wait ${e.serverLongestWaitMs} ms`,
    );
  return parts.join("; ");
}

/** A URL's captures, newest first, one line each: time, status, type, and where the record lies. */
function capturesText(url: string, captures: readonly Capture[]): string {
  if (captures.length === 0) return `${url}\n  no captures (not fetched yet, nothing stored, or unknown to the crawl)\n`;
  const rows = captures.map((c) => [
    new Date(Number(c.fetchedAtMs)).toISOString(),
    String(c.status),
    c.contentType || "-",
    c.job,
    c.warc ? `${c.warc.file} @${c.warc.offset} +${c.warc.length}` : "-",
  ]);
  return `${url}\n${table(["fetched", "status", "type", "job", "record (file @offset +length)"], rows)}`;
}

function roleName(r: NodeRole): string {
  return r === NodeRole.NODE_ROLE_FRONTIER
    ? "frontier"
    : r === NodeRole.NODE_ROLE_FETCHER
      ? "fetcher"
      : r === NodeRole.NODE_ROLE_COORDINATOR
        ? "coordinator"
        : "?";
}

function stateName(s: NodeState): string {
  return (
    (
      {
        [NodeState.NODE_STATE_ACTIVE]: "active",
        [NodeState.NODE_STATE_DRAINING]: "draining",
        [NodeState.NODE_STATE_DEAD]: "dead",
        [NodeState.NODE_STATE_LEFT]: "left",
      } as Record<number, string>
    )[s] ?? "?"
  );
}
