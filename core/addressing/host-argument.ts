/**
 * The host an operator names (`crawlctl host show`, the admin API, FrontierService's host arguments): a bare
 * host (`Example.COM:8080`) or a URL whose host is meant, turned into the host key the frontier files the
 * host under (lower case, default port dropped, as normalization writes it). A malformed argument is an
 * InvalidArgumentError that says what to give instead. Host names are at most 253 characters (RFC 1035),
 * URLs at most 8,192: nothing longer is parsed, and no message quotes more than 64 characters of input.
 */
import { InvalidArgumentError } from "../errors/index.ts";
import { hostNameOf } from "../net/index.ts";
import { hostKeyOf, MAX_URL_LENGTH, normalizeUrl } from "../url/index.ts";

/** Longest host name (RFC 1035); a host key may add `:port`. */
export const MAX_HOST_LENGTH = 253;

/** The host key of `input`; InvalidArgumentError when it is empty, not a usable URL, or not a host name. */
export function hostKeyOfArgument(input: string): string {
  const text = input.trim();
  if (text === "") throw new InvalidArgumentError("host: must not be empty");
  if (text.includes("://") ? text.length > MAX_URL_LENGTH : text.length > MAX_HOST_LENGTH + ":65535".length) {
    throw new InvalidArgumentError(`host: longer than ${MAX_HOST_LENGTH} characters (${text.length})`);
  }
  const key = hostKeyOfText(text);
  if (hostNameOf(key).length > MAX_HOST_LENGTH) throw new InvalidArgumentError(`host: longer than ${MAX_HOST_LENGTH} characters`);
  return key;
}

function hostKeyOfText(text: string): string {
  if (text.includes("://")) {
    const n = normalizeUrl(text);
    if (!n.ok) throw new InvalidArgumentError(`host: ${n.reason}`);
    return hostKeyOf(n.url);
  }
  if (/[\s/?#@\\]/.test(text))
    throw new InvalidArgumentError(`host: "${text.slice(0, 64)}" is not a host name (give example.com or example.com:8080)`);
  // A bare host key keeps its port as given (http's default port 80 is dropped by normalization, so a key
  // with :80 is looked up without it, as the frontier stores it).
  const n = normalizeUrl(`http://${text}/`);
  if (!n.ok) throw new InvalidArgumentError(`host: ${n.reason}`);
  return hostKeyOf(n.url);
}
