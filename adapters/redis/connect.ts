/**
 * Opens the connection to a region's Redis that the seen-set and the content index share. One socket per
 * process is enough: node-redis writes concurrent commands back to back (pipelining), and Redis answers
 * them in order. The reconnect policy splits in two: the first connection must succeed within
 * `initialTimeoutMs`, or `connectRedis` fails with a `RedisUnavailableError` naming the address and the
 * last socket error (a wrong address should stop the process at start-up, not hang it); once connected,
 * a dropped connection is retried forever with capped exponential backoff plus jitter, because the crawl
 * outlives a Redis restart (ARCHITECTURE "Failure": admissions wait, nothing is acked, nothing is lost).
 * Commands issued while the socket is down wait in node-redis's offline queue and fail after the command
 * timeout, so callers see an error they can retry rather than a hang; `redisCommandError` turns such a
 * failure (node-redis's timeout has no message at all) into one that says which command, which server,
 * and why. An outage is reported once when the connection drops (`onDown`) and once when it is back
 * (`onUp`), not once per reconnect attempt.
 *
 * TLS: a `rediss://` URL speaks TLS, checking the server's certificate against `tlsCaPem` when given (else
 * the system's CAs); the ACL user and password go in the URL (`rediss://crawler:<password>@host:port`). A
 * refused login or certificate fails at once, saying which, rather than being retried until the timeout.
 *
 * Runtime-neutral: the `redis` package and nothing else, so it runs on Bun and Deno.
 */
import { createClient } from "redis";
// Before any command: node-redis would trace every command on Bun (see the file).
import "./tracing-channel-shim.ts";
import { errorFields } from "../../core/errors/index.ts";
import type { Log } from "../../core/ports/index.ts";

/** A connected node-redis client, as `connectRedis` builds it. */
export type RedisClient = ReturnType<typeof createConfiguredClient>;

export interface RedisConnectOptions {
  /** How long the first connection may take, retries included, before giving up (default 10 s). */
  initialTimeoutMs?: number;
  /** TCP connect timeout of one attempt (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * How long a command may wait to be sent while the connection is down (node-redis's command timeout
   * covers only that queue; default 5 s; 0 disables).
   */
  commandTimeoutMs?: number;
  /**
   * A connection that receives nothing for this long is dropped and reconnected, failing the commands that
   * wait for replies on it: a server that hangs, or a network that swallows packets, is noticed this
   * soon. A PING every third of it keeps a quiet, healthy connection busy (default 6 s; 0 disables).
   */
  idleTimeoutMs?: number;
  /** Cap on the delay between reconnect attempts (default 2 s). */
  maxReconnectDelayMs?: number;
  /** `CLIENT SETNAME`, e.g. the node id, so `CLIENT LIST` shows who is connected. */
  name?: string;
  /** PEM of the CA that signs the server's certificate (with a `rediss://` URL). */
  tlsCaPem?: string;
  /**
   * Hears socket errors before the connection was first ready (default: ignored here; a failed start
   * reports the last one). Wire it to the component's logger.
   */
  onError?: (error: Error) => void;
  /** The connection dropped after it had been ready; node-redis reconnects (log it once per outage). */
  onDown?: (error: Error | undefined) => void;
  /** The connection is ready again after an outage that lasted `downMs`. */
  onUp?: (downMs: number) => void;
}

/**
 * A Redis command failed, said in full: what was asked, of which server, and why (a timeout says how long
 * it waited and whether the connection was down). Reaction: retry later. `cause` holds node-redis's error.
 */
export class RedisCommandError extends Error {
  override readonly name = "RedisCommandError";
}

/** What `redisCommandError` knows of a client connectRedis built. */
const described = new WeakMap<object, { where: string; commandTimeoutMs: number }>();

/**
 * The region's Redis could not be reached. Reaction: retry later (at start-up: fatal, check the address
 * and that the server runs). `cause` holds the last socket error.
 */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
}

/** Connects to `url` (`redis://host:port[/db]`) and resolves once the server answers. */
export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<RedisClient> {
  const {
    initialTimeoutMs = 10_000,
    connectTimeoutMs = 5_000,
    commandTimeoutMs = 5_000,
    idleTimeoutMs = 6_000,
    maxReconnectDelayMs = 2_000,
    name,
    onError,
    tlsCaPem,
    onDown,
    onUp,
  } = options;
  const where = redactUrl(url);
  const startedAt = Date.now();
  let everReady = false;
  let lastError: unknown;

  const client = createConfiguredClient(url, name, connectTimeoutMs, commandTimeoutMs, idleTimeoutMs, tlsCaPem, (retries, cause) => {
    lastError = cause;
    // Credentials and certificates do not get better by retrying: fail at once, before the first success.
    if (!everReady && refusal(cause)) return new RedisUnavailableError(refusal(cause)!, { cause });
    if (!everReady && Date.now() - startedAt >= initialTimeoutMs) {
      return new RedisUnavailableError(
        `Redis at ${where} is unreachable after ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${describe(cause)}); check the address and that redis-server runs`,
        { cause },
      );
    }
    const backoff = Math.min(maxReconnectDelayMs, 50 * 2 ** Math.min(retries, 16));
    return backoff + Math.floor(Math.random() * Math.min(200, backoff));
  });
  described.set(client, { where, commandTimeoutMs });
  // node-redis emits "error" on every socket failure (each failed reconnect attempt too); an EventEmitter
  // without a listener would throw it. An outage is reported once, when it starts, and once when it ends.
  let downSince: number | undefined;
  client.on("error", (error: Error) => {
    lastError = error;
    if (downSince !== undefined) return;
    if (everReady) {
      downSince = Date.now();
      onDown?.(error);
    } else {
      onError?.(error);
    }
  });
  client.on("end", () => {
    if (everReady && downSince === undefined) downSince = Date.now();
  });
  client.on("reconnecting", () => {
    if (everReady && downSince === undefined) {
      downSince = Date.now();
      onDown?.(lastError instanceof Error ? lastError : undefined);
    }
  });
  client.on("ready", () => {
    everReady = true;
    if (downSince !== undefined) {
      const downMs = Date.now() - downSince;
      downSince = undefined;
      onUp?.(downMs);
    }
  });

  try {
    await client.connect();
  } catch (cause) {
    client.destroy();
    // node-redis wraps the strategy's verdict in a ReconnectStrategyError (`originalError`).
    const verdict = (cause as { originalError?: unknown } | undefined)?.originalError ?? cause;
    if (verdict instanceof RedisUnavailableError) throw verdict;
    const refused = refusal(cause) ?? refusal(lastError);
    if (refused) throw new RedisUnavailableError(refused, { cause });
    throw new RedisUnavailableError(`cannot connect to Redis at ${where}: ${describe(cause ?? lastError)}`, { cause });
  }
  return client;
}

function createConfiguredClient(
  url: string,
  name: string | undefined,
  connectTimeoutMs: number,
  commandTimeoutMs: number,
  idleTimeoutMs: number,
  tlsCaPem: string | undefined,
  reconnectStrategy: (retries: number, cause: Error) => number | Error,
) {
  const tls = url.startsWith("rediss:");
  return createClient({
    url,
    name,
    // Enterprise maintenance notifications do not exist on a plain redis-server; skip the handshake.
    maintNotifications: "disabled",
    commandOptions: { timeout: commandTimeoutMs > 0 ? commandTimeoutMs : undefined },
    pingInterval: idleTimeoutMs > 0 ? Math.max(100, Math.floor(idleTimeoutMs / 3)) : undefined,
    socket: {
      ...(tls ? { tls: true as const, ...(tlsCaPem ? { ca: tlsCaPem } : {}) } : {}),
      connectTimeout: connectTimeoutMs,
      socketTimeout: idleTimeoutMs > 0 ? idleTimeoutMs : undefined,
      reconnectStrategy,
    },
  });
}

/** Why the server refused this client, when it did (a wrong password, a certificate that does not verify). */
function refusal(error: unknown): string | undefined {
  const message = describe(error);
  if (/WRONGPASS|NOAUTH|invalid username-password|NOPERM/i.test(message))
    return `Redis refused the login (${message}): check the user and password in the Redis URL (CRAWL_REDIS_URL)`;
  if (/certificate|self.signed|unable to verify|unknown ca|altnames/i.test(message))
    return `Redis server's TLS certificate was not accepted (${message}): check CRAWL_REDIS_TLS_CA_FILE, the CA that signed it`;
  return undefined;
}

/**
 * The connection callbacks of `connectRedis` wired to `log`: one warning when an outage starts (with the
 * error that started it), one line when the connection is back (and how long it was down).
 */
export function redisConnectionLog(log: Log): Pick<RedisConnectOptions, "onError" | "onDown" | "onUp"> {
  return {
    onError: (error) => log.warn("Redis connection error", errorFields(error)),
    onDown: (error) =>
      log.warn(
        "Redis connection lost; reconnecting (commands wait, then fail and are retried)",
        errorFields(error ?? new Error("the connection to Redis closed")),
      ),
    onUp: (downMs) => log.info("Redis connection back", { downMs }),
  };
}

/** `url` without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "<unparsable Redis URL>";
  }
}

/**
 * `error`, the failure of `what` (e.g. "the seen-set check of partition 3") on `client`, as a
 * RedisCommandError whose message says which server and why; node-redis's own errors can be bare (its
 * command timeout is a TimeoutError with no message, which used to be logged as `Error: `).
 */
export function redisCommandError(client: RedisClient, what: string, error: unknown): RedisCommandError {
  const known = described.get(client);
  const where = known?.where ?? redactUrl(client.options?.url ?? "redis://(unknown address)");
  const name = error instanceof Error ? error.constructor.name : "";
  const down = client.isReady ? "" : client.isOpen ? "; the connection is down and being re-established" : "; the client is closed";
  let why: string;
  if (name === "TimeoutError" && !(error as Error).message) {
    // node-redis times out only commands it has not written yet: they wait for a connection.
    why = `not sent within ${known ? `${known.commandTimeoutMs} ms` : "the command timeout"}`;
  } else {
    why = describe(error) || `${name || "an error"} with no message`;
  }
  return new RedisCommandError(`${what} on Redis at ${where} failed: ${why}${down}`, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
