/**
 * The gRPC edge of the project's errors (core/errors), both ways. A server turns what a handler threw into a
 * status with `toGrpcError`: the ApiError classes keep their message under their code, and anything else
 * becomes INTERNAL with a generic message, the real error going only to the server's log, so no stack,
 * path or address leaks to a caller. A client turns a failed call back into an ApiError with
 * `fromGrpcError`, so code above the facade never sees grpc-js types.
 */
import { Metadata, status, type ServiceError as GrpcServiceError, type StatusObject } from "@grpc/grpc-js";
import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  NotLeaderError,
  UnauthenticatedError,
  UnavailableError,
  UnreachableError,
  type ApiError,
} from "../../core/errors/index.ts";

/**
 * Trailing metadata of every status a handler sent: `crawler-error` names the error class, which tells a
 * client that the server answered (an UNAVAILABLE without it came from the transport: the peer was not
 * reached), and `crawler-leader` comes with a NotLeaderError.
 */
const ERROR_KEY = "crawler-error";
const LEADER_KEY = "crawler-leader";

/** Receives the errors that were hidden from the caller as INTERNAL. */
export type InternalErrorLog = (error: unknown) => void;

const INTERNAL_MESSAGE = "internal error";

export const logInternalToStderr: InternalErrorLog = (error) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `${JSON.stringify({ at: new Date().toISOString(), component: "grpc", level: "error", msg: "internal error in a gRPC handler", error: detail })}\n`,
  );
};

/** The status a server sends for `error`; unknown errors are logged with `log` and sent as INTERNAL. */
export function toGrpcError(
  error: unknown,
  log: InternalErrorLog = logInternalToStderr,
): Pick<StatusObject, "code" | "details" | "metadata"> {
  const answer = (code: status, e: ApiError) => {
    const metadata = new Metadata();
    metadata.set(ERROR_KEY, e.name);
    if (e instanceof NotLeaderError) metadata.set(LEADER_KEY, e.leader);
    return { code, details: e.message, metadata };
  };
  if (error instanceof InvalidArgumentError) return answer(status.INVALID_ARGUMENT, error);
  if (error instanceof UnauthenticatedError) return answer(status.UNAUTHENTICATED, error);
  if (error instanceof NotFoundError) return answer(status.NOT_FOUND, error);
  if (error instanceof FailedPreconditionError) return answer(status.FAILED_PRECONDITION, error);
  if (error instanceof UnavailableError) return answer(status.UNAVAILABLE, error);
  log(error);
  return { code: status.INTERNAL, details: INTERNAL_MESSAGE, metadata: new Metadata() };
}

/** True for an error a grpc-js client call failed with. */
function isGrpcStatusError(error: unknown): error is GrpcServiceError {
  return error instanceof Error && typeof (error as Partial<GrpcServiceError>).code === "number" && "details" in error;
}

/**
 * The ApiError for a failed client call, with `what` (e.g. `frontier node f1 at 127.0.0.1:5000`) naming
 * the peer in the message. Transport failures (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED,
 * RESOURCE_EXHAUSTED, ABORTED) become UnavailableError: an UnreachableError when the peer never answered
 * (no `crawler-error` in the trailers, or the deadline passed), a NotLeaderError when a standby
 * coordinator refused; errors that are not gRPC statuses and codes with no project meaning become a plain
 * Error, which a server in turn hides as INTERNAL.
 */
export function fromGrpcError(error: unknown, what: string): Error {
  if (!isGrpcStatusError(error)) return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  const details = error.details || status[error.code] || "no details";
  const withCause = <E extends ApiError>(e: E): E => Object.assign(e, { cause: error });
  switch (error.code) {
    case status.INVALID_ARGUMENT:
    case status.OUT_OF_RANGE:
      return withCause(new InvalidArgumentError(details));
    case status.UNAUTHENTICATED:
      return withCause(new UnauthenticatedError(details));
    case status.NOT_FOUND:
      return withCause(new NotFoundError(details));
    case status.FAILED_PRECONDITION:
      return withCause(new FailedPreconditionError(details));
    case status.UNAVAILABLE: {
      const sent = metadataText(error, ERROR_KEY);
      if (sent === "NotLeaderError") return withCause(new NotLeaderError(`${what}: ${details}`, metadataText(error, LEADER_KEY)));
      if (sent === undefined) return withCause(new UnreachableError(`${what} is unavailable: ${details}`));
      return withCause(new UnavailableError(`${what} is unavailable: ${details}`));
    }
    case status.CANCELLED:
    case status.RESOURCE_EXHAUSTED:
    case status.ABORTED:
      return withCause(new UnavailableError(`${what} is unavailable: ${details}`));
    case status.DEADLINE_EXCEEDED:
      return withCause(new UnreachableError(`${what} did not answer in time: ${details}`));
    default:
      return new Error(`${what} failed with ${status[error.code] ?? error.code}: ${details}`, { cause: error });
  }
}

/** One text value of the call's trailing metadata, if the server sent it. */
function metadataText(error: GrpcServiceError, key: string): string | undefined {
  const value = error.metadata?.get(key)[0];
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : new TextDecoder().decode(value);
}
