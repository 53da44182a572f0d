/**
 * Runs a Lua script by its SHA-1 (`EVALSHA`), sending the body (`EVAL`) only when the server answers
 * NOSCRIPT: after a restart, a failover or `SCRIPT FLUSH` the server's script cache is empty, and the
 * first call re-populates it. Each call is one command, so concurrent calls share node-redis's pipeline.
 * All keys a script touches are passed in KEYS, as Redis asks of scripts.
 */
import type { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { RedisClient } from "./connect.ts";

type CommandOptions = Parameters<RedisClient["sendCommand"]>[1];

export class LuaScript {
  readonly sha1: string;

  constructor(readonly body: string) {
    this.sha1 = createHash("sha1").update(body).digest("hex");
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
