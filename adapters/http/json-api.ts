/**
 * The conventions of the project's JSON HTTP APIs (the coordinator's admin API, `crawl --http`), in one
 * place so both answer alike:
 *
 *   - every error is `{"error": {"code", "message"}}` with a stable code, mapped from the project's errors
 *     (core/errors) by `apiError`: 400 `invalid_argument`, 401 `unauthenticated`, 404 `not_found`, 405
 *     `method_not_allowed`, 409 `failed_precondition`, 413 `payload_too_large`, 503 `unavailable` (or `not_leader` from a standby), 500
 *     `internal` (a generic message; the error itself goes to the log);
 *   - `requireBearer` checks `Authorization: Bearer <token>` against a TokenSet before anything reads the
 *     body, except on the paths that have their own rule (health, the dashboard's static page), with
 *     `WWW-Authenticate` on a 401;
 *   - `clip` shortens any input quoted in a message; `requiredQuery` reads a bounded query parameter.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerToken, type TokenSet } from "../../core/auth/index.ts";
import {
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  NotLeaderError,
  UnauthenticatedError,
  UnavailableError,
} from "../../core/errors/index.ts";
import { MAX_URL_LENGTH } from "../../core/url/index.ts";
import { BodyTooLargeError } from "./request-body.ts";

/** The JSON APIs' body limit (the admin API, `crawl --http`): room for a full add-seeds request (10,000 URLs of a few hundred bytes each); 413 past it. */
export const API_MAX_BODY_BYTES = 8 * 1024 * 1024;

export type ErrorStatus = 400 | 401 | 404 | 405 | 409 | 413 | 500 | 503;

export function sendError(c: Context, status: ErrorStatus, code: string, message: string): Response {
  return c.json({ error: { code, message } }, status);
}

/**
 * The JSON answer to an error a handler threw; `internal` is told about any error that is not one of the
 * project's (a bug), which is answered 500 without details.
 */
export function apiError(c: Context, error: unknown, realm: string, internal: (error: unknown) => void): Response {
  if (error instanceof InvalidArgumentError) return sendError(c, 400, "invalid_argument", error.message);
  if (error instanceof UnauthenticatedError) {
    c.header("WWW-Authenticate", `Bearer realm="${realm}"`);
    return sendError(c, 401, "unauthenticated", error.message);
  }
  if (error instanceof NotFoundError) return sendError(c, 404, "not_found", error.message);
  if (error instanceof FailedPreconditionError) return sendError(c, 409, "failed_precondition", error.message);
  if (error instanceof BodyTooLargeError) return sendError(c, 413, "payload_too_large", `${error.message}; send fewer URLs per request`);
  // A standby coordinator: the client asks the next address; `leader` names the holder when known.
  if (error instanceof NotLeaderError) return c.json({ error: { code: "not_leader", message: error.message, leader: error.leader } }, 503);
  if (error instanceof UnavailableError) return sendError(c, 503, "unavailable", error.message);
  internal(error);
  return sendError(c, 500, "internal", "internal error");
}

/** Bearer-token check on every path but those `open` accepts; no tokens at all means everything is open. */
export function requireBearer(tokens: TokenSet, realm: string, open: (path: string) => boolean): MiddlewareHandler {
  return async function requireBearerToken(c, next) {
    if (tokens.size === 0 || open(c.req.path)) return next();
    const given = bearerToken(c.req.header("authorization"));
    if (given === undefined) {
      c.header("WWW-Authenticate", `Bearer realm="${realm}"`);
      return sendError(c, 401, "unauthenticated", "missing bearer token: send Authorization: Bearer <token>");
    }
    if (!tokens.matches(given)) {
      c.header("WWW-Authenticate", `Bearer realm="${realm}", error="invalid_token"`);
      return sendError(c, 401, "unauthenticated", "invalid bearer token");
    }
    return next();
  };
}

/** A required, non-empty query parameter of bounded length. */
export function requiredQuery(value: string | undefined, name: string, maxLength = MAX_URL_LENGTH): string {
  if (value === undefined || value.trim() === "") throw new InvalidArgumentError(`${name}: required query parameter`);
  if (value.length > maxLength) throw new InvalidArgumentError(`${name}: longer than ${maxLength} characters`);
  return value;
}

export { clip } from "../../core/input/index.ts";

/** Parses a request body as JSON; `contentType` must be JSON. */
export function parseJsonBody(text: string, contentType: string | undefined): unknown {
  if (!contentType || !/^application\/(.+\+)?json\b/i.test(contentType.trim())) {
    throw new InvalidArgumentError("body: send JSON with Content-Type: application/json");
  }
  if (text.trim() === "") throw new InvalidArgumentError("body: empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`body: not valid JSON (${(error as Error).message})`);
  }
}
