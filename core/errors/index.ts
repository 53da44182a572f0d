/**
 * The errors that cross transports: a service throws them, and only the edges turn them into a gRPC status
 * (adapters/grpc) or an HTTP status and JSON error (the Hono apps). Each is named after what the caller
 * should do next.
 */
export {
  ApiError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  NotLeaderError,
  UnauthenticatedError,
  UnavailableError,
  UnreachableError,
  isApiError,
  type Reaction,
} from "./api-errors.ts";
export { errorFields, errorInfo, errorText, isErrorInfo, type ErrorInfo } from "./error-fields.ts";
