/**
 * Small validators for the admin API's input: each takes untrusted JSON (or a query value) and returns
 * the typed value, or throws InvalidArgumentError whose message names the field and what was expected.
 * Unknown fields are refused, so a typo (`"url"` for `"urls"`) is an error rather than an empty request.
 * Messages quote input only through `clip`, so a hostile request never comes back at its own length.
 */
import { InvalidArgumentError } from "../core/errors/index.ts";
import { MAX_URL_LENGTH } from "../core/url/index.ts";
import { jsonKind as kind, jsonObject as object, onlyFields } from "../core/input/index.ts";

export { clip, parseJsonBody, requiredQuery } from "../adapters/http/index.ts";

/**
 * `{"urls": [...], "feeds": [...]}`: page URLs and feed URLs (RSS, Atom: read as feeds), either may be left
 * out; together 1..maxUrls non-empty strings of at most MAX_URL_LENGTH characters.
 */
export function seedsRequest(body: unknown, maxUrls: number): { urls: string[]; feeds: string[] } {
  const obj = object(body, "body");
  onlyFields(obj, ["urls", "feeds"], "body");
  if (obj["urls"] === undefined && obj["feeds"] === undefined) {
    throw new InvalidArgumentError("urls: required (or feeds), an array of URL strings");
  }
  const urls = urlList(obj["urls"], "urls");
  const feeds = urlList(obj["feeds"], "feeds");
  const total = urls.length + feeds.length;
  if (total === 0) throw new InvalidArgumentError(`${obj["urls"] === undefined ? "feeds" : "urls"}: give at least one URL`);
  if (total > maxUrls) {
    const what = feeds.length === 0 ? "urls" : urls.length === 0 ? "feeds" : "urls and feeds";
    throw new InvalidArgumentError(`${what}: at most ${maxUrls} URLs per request, got ${total}`);
  }
  return { urls, feeds };
}

/** An optional array of URL strings (absent: none), each non-empty and at most MAX_URL_LENGTH characters. */
function urlList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidArgumentError(`${field}: must be an array of strings, got ${kind(value)}`);
  value.forEach((u, i) => {
    if (typeof u !== "string") throw new InvalidArgumentError(`${field}[${i}]: must be a string, got ${kind(u)}`);
    if (u.trim() === "") throw new InvalidArgumentError(`${field}[${i}]: must not be empty`);
    if (u.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`${field}[${i}]: longer than ${MAX_URL_LENGTH} characters`);
  });
  return value as string[];
}
