/**
 * What the local cluster's servers say about a crawl (issue 26, item 1): read from outside, at three points
 * of the benchmark's window (the cluster ready and seeded, the window's middle, its end), so per-page figures
 * come out for the whole run after start-up and for the steady half alone.
 *
 *   redis-server  `INFO commandstats` (calls per command), `INFO memory` (used_memory), `INFO keyspace`, and
 *                 the append-only file's growth, sampled every second from `INFO persistence`
 *                 (aof_current_size; across a rewrite, whatever the new increment file holds is added, so
 *                 at most one second of growth is lost per rewrite, and the count of rewrites is reported)
 *   nats-server   the monitoring port's `/varz` (messages and bytes clients published, and the server sent)
 *                 and `/jsz?accounts=true&streams=true` (per stream: messages appended, last_seq; bytes held)
 *
 * After the window, `keyFamilies` scans Redis once and sizes every key family (the text before the first
 * `:`) with `MEMORY USAGE` on up to 200 keys of each: what the region's Redis holds per page.
 *
 * Bun only (the benchmark is): Bun's own `RedisClient`, so the bench needs no networked library of its own.
 */
import { RedisClient } from "bun";
import type { ProcessEntry } from "../../scripts/cluster/cluster-file.ts";

/** One process of DIR/cluster.json, as far as this reads it. */
export type ClusterProcess = Pick<ProcessEntry, "role" | "id" | "region" | "pid" | "ports">;

export interface ServerSnapshot {
  /** When it was taken (performance.now()). */
  at: number;
  redis: { commands: Record<string, number>; usedMemoryBytes: number; keys: number; aofBytes: number; aofRewrites: number };
  nats: { inMsgs: number; inBytes: number; outMsgs: number; outBytes: number; streams: Record<string, { lastSeq: number; bytes: number }> };
}

export interface KeyFamily {
  family: string;
  keys: number;
  /** MEMORY USAGE averaged over the sampled keys, times `keys`. */
  bytes: number;
}

interface AofTracker {
  /** AOF bytes appended since tracking began (rewrites bridged). */
  grown: number;
  lastSize: number;
  lastBase: number;
  rewrites: number;
}

const FAMILY_SAMPLE = 200;
const AOF_SAMPLE_MS = 1000;

export class ClusterStats {
  private readonly clients: RedisClient[];
  private readonly monitors: string[];
  private readonly aof: AofTracker[];
  private timer: ReturnType<typeof setInterval> | undefined;
  private busy = false;

  constructor(processes: readonly ClusterProcess[]) {
    this.clients = processes
      .filter((p) => p.role === "redis" && p.ports["redis"])
      .map((p) => new RedisClient(`redis://127.0.0.1:${p.ports["redis"]}`, { autoReconnect: true }));
    this.monitors = processes.filter((p) => p.role === "nats" && p.ports["monitor"]).map((p) => `http://127.0.0.1:${p.ports["monitor"]}`);
    this.aof = this.clients.map(() => ({ grown: 0, lastSize: -1, lastBase: 0, rewrites: 0 }));
  }

  /** Starts following the AOFs (one INFO a second per Redis). */
  async start(): Promise<void> {
    await this.followAof();
    this.timer = setInterval(() => void this.followAof(), AOF_SAMPLE_MS);
  }

  private async followAof(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await Promise.all(
        this.clients.map(async (c, i) => {
          const info = parseInfo(await c.send("INFO", ["persistence"]));
          const size = Number(info["aof_current_size"] ?? 0);
          const base = Number(info["aof_base_size"] ?? 0);
          const rewrites = Number(info["aof_rewrites"] ?? 0);
          const t = this.aof[i]!;
          if (t.lastSize >= 0) {
            // After a rewrite the AOF is a new base plus a new increment: count the increment only.
            t.grown += rewrites !== t.rewrites ? Math.max(0, size - base) : Math.max(0, size - t.lastSize);
          }
          t.lastSize = size;
          t.lastBase = base;
          t.rewrites = rewrites;
        }),
      );
    } catch {
      // a sample lost (Redis busy or restarting): the next one bridges it
    } finally {
      this.busy = false;
    }
  }

  async snapshot(): Promise<ServerSnapshot> {
    await this.followAof();
    const redis = { commands: {} as Record<string, number>, usedMemoryBytes: 0, keys: 0, aofBytes: 0, aofRewrites: 0 };
    for (const [i, c] of this.clients.entries()) {
      const stats = parseInfo(await c.send("INFO", ["commandstats"]));
      for (const [k, v] of Object.entries(stats)) {
        const m = /^cmdstat_(.+)$/.exec(k);
        const calls = /calls=(\d+)/.exec(v);
        if (m && calls) redis.commands[m[1]!] = (redis.commands[m[1]!] ?? 0) + Number(calls[1]);
      }
      redis.usedMemoryBytes += Number(parseInfo(await c.send("INFO", ["memory"]))["used_memory"] ?? 0);
      for (const v of Object.values(parseInfo(await c.send("INFO", ["keyspace"])))) redis.keys += Number(/keys=(\d+)/.exec(v)?.[1] ?? 0);
      redis.aofBytes += this.aof[i]!.grown;
      redis.aofRewrites += this.aof[i]!.rewrites;
    }
    const nats = { inMsgs: 0, inBytes: 0, outMsgs: 0, outBytes: 0, streams: {} as Record<string, { lastSeq: number; bytes: number }> };
    for (const base of this.monitors) {
      const varz = (await (await fetch(`${base}/varz`)).json()) as Record<string, number>;
      nats.inMsgs += varz["in_msgs"] ?? 0;
      nats.inBytes += varz["in_bytes"] ?? 0;
      nats.outMsgs += varz["out_msgs"] ?? 0;
      nats.outBytes += varz["out_bytes"] ?? 0;
      const jsz = (await (await fetch(`${base}/jsz?accounts=true&streams=true`)).json()) as JszReply;
      for (const account of jsz.account_details ?? []) {
        for (const s of account.stream_detail ?? []) {
          const prev = nats.streams[s.name];
          nats.streams[s.name] = {
            lastSeq: (prev?.lastSeq ?? 0) + (s.state?.last_seq ?? 0),
            bytes: (prev?.bytes ?? 0) + (s.state?.bytes ?? 0),
          };
        }
      }
    }
    return { at: performance.now(), redis, nats };
  }

  /** Every key of every Redis, by family, with its memory (sampled). Run after the window: it scans. */
  async keyFamilies(): Promise<KeyFamily[]> {
    const families = new Map<string, { keys: number; sampled: number; sampledBytes: number }>();
    for (const c of this.clients) {
      let cursor = "0";
      do {
        const [next, keys] = (await c.send("SCAN", [cursor, "COUNT", "1000"])) as [string, string[]];
        cursor = next;
        for (const key of keys) {
          const family = familyOf(key);
          let f = families.get(family);
          if (!f) families.set(family, (f = { keys: 0, sampled: 0, sampledBytes: 0 }));
          f.keys++;
          if (f.sampled < FAMILY_SAMPLE) {
            const bytes = Number((await c.send("MEMORY", ["USAGE", key, "SAMPLES", "0"])) ?? 0);
            f.sampled++;
            f.sampledBytes += bytes;
          }
        }
      } while (cursor !== "0");
    }
    return [...families.entries()]
      .map(([family, f]) => ({ family, keys: f.keys, bytes: f.sampled > 0 ? Math.round((f.sampledBytes / f.sampled) * f.keys) : 0 }))
      .sort((a, b) => b.bytes - a.bytes);
  }

  close(): void {
    clearInterval(this.timer);
    for (const c of this.clients) c.close();
  }
}

interface JszReply {
  account_details?: { stream_detail?: { name: string; state?: { last_seq?: number; bytes?: number } }[] }[];
}

/** `seen:12:0` -> `seen`, `simhash:3:ab12:u` -> `simhash`, a key without `:` is its own family. */
export function familyOf(key: string): string {
  const i = key.indexOf(":");
  return i < 0 ? key : key.slice(0, i);
}

/** `INFO` text as field -> value (section headers and blank lines skipped). */
export function parseInfo(text: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of String(text).split(/\r?\n/)) {
    if (line.startsWith("#") || !line.includes(":")) continue;
    const i = line.indexOf(":");
    out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}

/** What happened between two snapshots. */
export function delta(from: ServerSnapshot, to: ServerSnapshot) {
  const commands: Record<string, number> = {};
  for (const [k, v] of Object.entries(to.redis.commands)) {
    const d = v - (from.redis.commands[k] ?? 0);
    if (d > 0) commands[k] = d;
  }
  const streams: Record<string, number> = {};
  for (const [k, v] of Object.entries(to.nats.streams)) {
    const d = v.lastSeq - (from.nats.streams[k]?.lastSeq ?? 0);
    if (d > 0) streams[k] = d;
  }
  return {
    seconds: (to.at - from.at) / 1000,
    redisCommands: commands,
    redisCommandsTotal: Object.values(commands).reduce((a, b) => a + b, 0),
    redisAofBytes: to.redis.aofBytes - from.redis.aofBytes,
    redisAofRewrites: to.redis.aofRewrites - from.redis.aofRewrites,
    redisUsedMemoryBytes: to.redis.usedMemoryBytes - from.redis.usedMemoryBytes,
    redisKeys: to.redis.keys - from.redis.keys,
    natsInMsgs: to.nats.inMsgs - from.nats.inMsgs,
    natsInBytes: to.nats.inBytes - from.nats.inBytes,
    natsOutMsgs: to.nats.outMsgs - from.nats.outMsgs,
    natsOutBytes: to.nats.outBytes - from.nats.outBytes,
    streamMessages: streams,
    streamMessagesTotal: Object.values(streams).reduce((a, b) => a + b, 0),
  };
}

export type ServerDelta = ReturnType<typeof delta>;
