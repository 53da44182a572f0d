/**
 * Opens the connection to a region's Redis that the seen-set and the content index share. One socket per
 * process is enough: node-redis writes concurrent commands back to back (pipelining), and Redis answers
 * them in order. The reconnect policy splits in two: the first connection must succeed within
 * `initialTimeoutMs`, or `connectRedis` fails with a `RedisUnavailableError` naming the address and the
 * last socket error (a wrong address should stop the process at start-up, not hang it); once connected,
 * a dropped connection is retried forever with capped exponential backoff plus jitter, because the crawl
 * outlives a Redis restart (ARCHITECTURE "Failure": admissions wait, nothing is acked, nothing is lost).
 * Commands issued while the socket is down wait in node-redis's offline queue and fail after the command
 * timeout, so callers see an error they can retry rather than a hang.
 *
 * TLS: a `rediss://` URL speaks TLS, checking the server's certificate against `tlsCaPem` when given (else
 * the system's CAs); the ACL user and password go in the URL (`rediss://crawler:<password>@host:port`). A
 * refused login or certificate fails at once, saying which, rather than being retried until the timeout.
 *
 * Runtime-neutral: the `redis` package and nothing else, so it runs on Bun and Deno.
 */
import { createClient } from "redis";

/** A connected node-redis client, as `connectRedis` builds it. */
export type RedisClient = ReturnType<typeof createConfiguredClient>;

export interface RedisConnectOptions {
  /** How long the first connection may take, retries included, before giving up (default 10 s). */
  initialTimeoutMs?: number;
  /** TCP connect timeout of one attempt (default 5 s). */
  connectTimeoutMs?: number;
  /** Time a command may wait for its reply, offline queue included (default 5 s; 0 disables). */
  commandTimeoutMs?: number;
  /** Cap on the delay between reconnect attempts (default 2 s). */
  maxReconnectDelayMs?: number;
  /** `CLIENT SETNAME`, e.g. the node id, so `CLIENT LIST` shows who is connected. */
  name?: string;
  /** PEM of the CA that signs the server's certificate (with a `rediss://` URL). */
  tlsCaPem?: string;
  /**
   * Hears every socket error, including the ones a reconnect will repair (default: ignored here; they
   * reach callers as failed commands). Wire it to the component's logger.
   */
  onError?: (error: Error) => void;
}

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
    maxReconnectDelayMs = 2_000,
    name,
    onError,
    tlsCaPem,
  } = options;
  const where = redactUrl(url);
  const startedAt = Date.now();
  let everReady = false;
  let lastError: unknown;

  const client = createConfiguredClient(url, name, connectTimeoutMs, commandTimeoutMs, tlsCaPem, (retries, cause) => {
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
  // node-redis emits "error" on every socket failure; an EventEmitter without a listener would throw it.
  client.on("error", (error: Error) => {
    lastError = error;
    onError?.(error);
  });
  client.on("ready", () => {
    everReady = true;
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
    socket: tls
      ? { tls: true, connectTimeout: connectTimeoutMs, reconnectStrategy, ...(tlsCaPem ? { ca: tlsCaPem } : {}) }
      : { connectTimeout: connectTimeoutMs, reconnectStrategy },
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

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
