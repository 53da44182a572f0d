/**
 * The errors a service raises when a request cannot be served, each named after what the caller should do
 * next: fix the request and never retry (`InvalidArgumentError`, `UnauthenticatedError`), stop asking for
 * something that does not exist (`NotFoundError`), wait for the system to reach the state the call needs
 * (`FailedPreconditionError`), or retry later because a dependency is down (`UnavailableError`). They carry
 * no transport: this file imports nothing, so HTTP edges and services can throw and catch them, and only
 * the edges (adapters/grpc/status-mapping.ts for gRPC, the Hono apps for HTTP) turn them into status codes. The message of these
 * errors is meant for the caller; any other error is internal and its message never leaves the process.
 */

/** What the caller should do after this error. */
export type Reaction = "fix-request" | "give-up" | "wait-for-state" | "retry-later";

/** Base of the errors whose message may be shown to the caller. */
export abstract class ApiError extends Error {
  abstract readonly reaction: Reaction;
}

/** The request is malformed (bad URL, missing field); retrying it unchanged fails the same way. */
export class InvalidArgumentError extends ApiError {
  override name = "InvalidArgumentError";
  readonly reaction = "fix-request";
}

/** The caller did not prove who it is (missing or wrong token); retry only with valid credentials. */
export class UnauthenticatedError extends ApiError {
  override name = "UnauthenticatedError";
  readonly reaction = "fix-request";
}

/** The thing asked about does not exist (no such node, no owner for the host). */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
  readonly reaction = "give-up";
}

/** The system is not in a state that allows the call (draining a coordinator, no ring yet). */
export class FailedPreconditionError extends ApiError {
  override name = "FailedPreconditionError";
  readonly reaction = "wait-for-state";
}

/** A dependency (the owning frontier node, the message bus) cannot be reached now; retry later. */
export class UnavailableError extends ApiError {
  override name = "UnavailableError";
  readonly reaction = "retry-later";
}

/**
 * The peer itself did not answer (refused, reset, timed out): raised by clients, never sent by a server.
 * A client that knows other addresses of the same service tries the next one.
 */
export class UnreachableError extends UnavailableError {
  override name = "UnreachableError";
}

/**
 * This coordinator is a standby: another one holds the lease, and only the lease holder serves the APIs.
 * Nothing was done; ask another address (`leader` names the holder when it is known).
 */
export class NotLeaderError extends UnavailableError {
  override name = "NotLeaderError";

  constructor(
    message: string,
    readonly leader = "",
  ) {
    super(message);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
