/**
 * The gRPC edge of the project's errors (errors.ts), both ways. A server turns what a handler threw into a
 * status with `toGrpcError`: the ApiError classes keep their message under their code, and anything else
 * becomes INTERNAL with a generic message, the real error going only to the server's log, so no stack,
 * path or address leaks to a caller. A client turns a failed call back into an ApiError with
 * `fromGrpcError`, so code above the facade never sees grpc-js types.
 */
import { status, type ServiceError as GrpcServiceError, type StatusObject } from "@grpc/grpc-js";
import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  type ApiError,
} from "../../core/errors/index.ts";

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
export function toGrpcError(error: unknown, log: InternalErrorLog = logInternalToStderr): Pick<StatusObject, "code" | "details"> {
  if (error instanceof InvalidArgumentError) return { code: status.INVALID_ARGUMENT, details: error.message };
  if (error instanceof UnauthenticatedError) return { code: status.UNAUTHENTICATED, details: error.message };
  if (error instanceof NotFoundError) return { code: status.NOT_FOUND, details: error.message };
  if (error instanceof FailedPreconditionError) return { code: status.FAILED_PRECONDITION, details: error.message };
  if (error instanceof UnavailableError) return { code: status.UNAVAILABLE, details: error.message };
  log(error);
  return { code: status.INTERNAL, details: INTERNAL_MESSAGE };
}

/** True for an error a grpc-js client call failed with. */
export function isGrpcStatusError(error: unknown): error is GrpcServiceError {
  return error instanceof Error && typeof (error as Partial<GrpcServiceError>).code === "number" && "details" in error;
}

/**
 * The ApiError for a failed client call, with `what` (e.g. `frontier node f1 at 127.0.0.1:5000`) naming
 * the peer in the message. Transport failures (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED,
 * RESOURCE_EXHAUSTED, ABORTED) become UnavailableError; errors that are not gRPC statuses and codes with no
 * project meaning become a plain Error, which a server in turn hides as INTERNAL.
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
    case status.UNAVAILABLE:
    case status.CANCELLED:
    case status.RESOURCE_EXHAUSTED:
    case status.ABORTED:
      return withCause(new UnavailableError(`${what} is unavailable: ${details}`));
    case status.DEADLINE_EXCEEDED:
      return withCause(new UnavailableError(`${what} did not answer in time: ${details}`));
    default:
      return new Error(`${what} failed with ${status[error.code] ?? error.code}: ${details}`, { cause: error });
  }
}
