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

/** `{"urls": ["...", ...]}` with 1..maxUrls non-empty strings of at most MAX_URL_LENGTH characters. */
export function seedsRequest(body: unknown, maxUrls: number): { urls: string[] } {
  const obj = object(body, "body");
  onlyFields(obj, ["urls"], "body");
  const urls = obj["urls"];
  if (urls === undefined) throw new InvalidArgumentError("urls: required, an array of URL strings");
  if (!Array.isArray(urls)) throw new InvalidArgumentError(`urls: must be an array of strings, got ${kind(urls)}`);
  if (urls.length === 0) throw new InvalidArgumentError("urls: give at least one URL");
  if (urls.length > maxUrls) throw new InvalidArgumentError(`urls: at most ${maxUrls} URLs per request, got ${urls.length}`);
  urls.forEach((u, i) => {
    if (typeof u !== "string") throw new InvalidArgumentError(`urls[${i}]: must be a string, got ${kind(u)}`);
    if (u.trim() === "") throw new InvalidArgumentError(`urls[${i}]: must not be empty`);
    if (u.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`urls[${i}]: longer than ${MAX_URL_LENGTH} characters`);
  });
  return { urls: urls as string[] };
}
