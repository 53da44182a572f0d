/**
 * Bearer tokens, as the admin HTTP API, the coordinator's gRPC API and every node's /metrics check them.
 * A setting holds a comma-separated list, every entry valid at once, so a token is rotated without a
 * moment when nothing works: add the new one beside the old, move the clients, drop the old. A check
 * compares the given token with every configured one, each over the same fixed width, so its time
 * depends neither on which token matched nor on how long a common prefix is.
 */
import type { ValueKind } from "../config/index.ts";

/** What a token may look like: the RFC 6750 token68 characters, 16 to 256 of them (then `=` padding). */
const TOKEN_SYNTAX = /^[A-Za-z0-9._~+/-]{16,256}=*$/;
/** Every comparison runs over this many characters: longer than any valid token. */
const WIDTH = 300;

export class TokenSet {
  readonly #tokens: readonly string[];

  /** `tokens` must each match the token syntax (the config kind checks it); an empty set matches nothing. */
  constructor(tokens: readonly string[]) {
    this.#tokens = [...tokens];
  }

  get size(): number {
    return this.#tokens.length;
  }

  /** Whether `given` is one of the tokens; the time taken does not depend on the tokens' contents. */
  matches(given: string): boolean {
    if (given.length > WIDTH) return false; // its length is the caller's own business, not a secret
    let matched = 0;
    for (const token of this.#tokens) matched |= sameWithin(given, token) ? 1 : 0;
    return matched === 1;
  }
}

/** Equality over the fixed width: every character position is compared, whatever differs first. */
function sameWithin(given: string, token: string): boolean {
  let diff = given.length ^ token.length;
  for (let i = 0; i < WIDTH; i++) diff |= (given.charCodeAt(i) | 0) ^ (token.charCodeAt(i) | 0);
  return diff === 0;
}

/** The token of an `Authorization: Bearer <token>` value, or undefined when the value is not one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  return match?.[1];
}

/**
 * A comma-separated token list as a config value: each entry checked against the token syntax, the list
 * written back as given. `optional` lets the list be empty (meaning: no token, or one made at start).
 */
export function tokenListKind(optional = true): ValueKind<readonly string[]> {
  return {
    kind: "tokens",
    parse: (raw) =>
      raw
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== ""),
    format: (tokens) => tokens.join(","),
    check(tokens) {
      if (!optional && tokens.length === 0) return "must name at least one token";
      if (tokens.some((t) => !TOKEN_SYNTAX.test(t))) return "each token must be 16-256 characters of A-Z a-z 0-9 . _ ~ + / -";
      return undefined;
    },
  };
}
