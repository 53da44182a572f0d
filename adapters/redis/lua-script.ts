/**
 * Runs a Lua script by its SHA-1 (`EVALSHA`), sending the body (`EVAL`) only when the server answers
 * NOSCRIPT: after a restart, a failover or `SCRIPT FLUSH` the server's script cache is empty, and the
 * first call re-populates it. Each call is one command, so concurrent calls share node-redis's pipeline.
 * All keys a script touches are passed in KEYS, as Redis asks of scripts.
 *
 * A script built `outOfAof` has its writes sent to replicas but not to the AOF (`redis.set_repl`, Redis 7
 * replicates a script by its effects): for state that is a cache, or lives seconds, and that a restart may
 * lose (docs/cluster.md, "What Redis keeps across a restart"). Its writes are then on disk only as far as
 * an AOF rewrite or an RDB snapshot caught them, so whoever reads them after a restart must cope with an
 * older state, not just with none (the seen-set checks the server's run_id for that).
 */
import type { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { RedisClient } from "./connect.ts";

type CommandOptions = Parameters<RedisClient["sendCommand"]>[1];

/** The first line of an `outOfAof` script: what it writes goes to replicas only, not to the AOF. */
const OUT_OF_AOF_LUA = "redis.set_repl(redis.REPL_REPLICA)\n";

export class LuaScript {
  readonly sha1: string;

  readonly body: string;

  constructor(body: string, options: { outOfAof?: boolean } = {}) {
    this.body = options.outOfAof ? `${OUT_OF_AOF_LUA}${body}` : body;
    this.sha1 = createHash("sha1").update(this.body).digest("hex");
  }

  /**
   * Runs the script; `args` are sent as they are (numbers already formatted by the caller). `options`
   * are node-redis command options, e.g. a type mapping for binary replies.
   */
  async run<T>(client: RedisClient, keys: readonly string[], args: readonly (string | Buffer)[], options?: CommandOptions): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand<T>(["EVALSHA", this.sha1, ...tail], options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return await client.sendCommand<T>(["EVAL", this.body, ...tail], options);
    }
  }
}
