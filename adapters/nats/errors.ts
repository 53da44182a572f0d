/**
 * Error classification for the NATS adapters: which JetStream errors mean "someone else wrote first"
 * (a compare-and-set lost, not a failure), "the stream or consumer is not there", or "it exists already".
 * The reactions: a lost CAS is an answer (undefined / false), a missing resource is retried by the
 * consume loops, and a configuration that cannot be changed in place is fatal (ConfigDriftError).
 */
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { UnavailableError } from "../../core/errors/index.ts";

const NAME_IN_USE = 10058; // stream name already in use with a different configuration
const REPLICAS_UNSUPPORTED = 10074; // replicas > 1 not supported in non-clustered mode
const CONSUMER_EXISTS = [10013, 10105, 10148]; // consumer name exists / already exists (2.9 and 2.10+ variants)

export function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

export function isStreamNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
}

export function isConsumerNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound;
}

/** The server runs JetStream alone (not clustered), so no stream can have more than one replica. */
export function isReplicasUnsupported(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === REPLICAS_UNSUPPORTED;
}

/** A stream (or bucket) cannot have `replicas` copies on this server: said so an operator knows the fix. */
export function replicasError(what: string, replicas: number, cause: unknown): ConfigDriftError {
  return new ConfigDriftError(
    `${what} cannot keep ${replicas} replicas: this nats-server runs JetStream alone, not in a cluster. Give --nats-replicas 1 ` +
      `(CRAWL_NATS_REPLICAS), or run the region's NATS as a cluster of at least ${replicas} servers`,
    { cause },
  );
}

export function isStreamExists(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === NAME_IN_USE;
}

export function isConsumerExists(err: unknown): boolean {
  return err instanceof JetStreamApiError && CONSUMER_EXISTS.includes(err.code);
}

/**
 * nats.js reports "no stream listens on this subject" (no responders to the publish) as JetStream not
 * being enabled, with a class it does not export; its name is the stable part.
 */
export function isNoStream(err: unknown): boolean {
  return err instanceof Error && err.name === "JetStreamNotEnabled";
}

/**
 * A stream or consumer exists with a setting that cannot be changed in place (retention, storage, filter
 * subject, ack policy). Fatal: an operator must delete it or fix the configuration; the crawler will not
 * silently drop a stream's messages by recreating it.
 */
export class ConfigDriftError extends Error {
  override readonly name = "ConfigDriftError";
  readonly retry = false;
}

/**
 * The connection to NATS is down, or dropped while a publish waited for its ack (which may or may not have
 * been stored). Reaction: retry later, with the same message id where there is one (the stream keeps one
 * copy within its duplicate window).
 */
export class BusUnavailableError extends Error {
  override readonly name = "BusUnavailableError";
  readonly retry = true;
}

/**
 * A read (or, with `verb` "written", a write) of the cluster state that NATS did not answer: the server
 * is down or restarting, the connection dropped under the request, JetStream has no meta or stream leader
 * yet ("jetstream is not enabled", "temporarily unavailable"), or the request timed out. Every such
 * failure passes; the caller is told to retry later (HTTP 503, gRPC UNAVAILABLE), never given an internal
 * error.
 */
export function stateUnavailable(what: string, cause: unknown, verb: "read" | "written" = "read"): UnavailableError {
  const reason = cause instanceof Error && cause.message ? cause.message : String(cause);
  return new UnavailableError(`the cluster state (NATS) cannot be ${verb} now (${what}: ${reason}); retry shortly`, { cause });
}
