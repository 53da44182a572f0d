/**
 * Checks of untrusted JSON input (an API's request body), shared by every API that reads one (the admin
 * API's seeds, crawl jobs' bodies through HTTP and gRPC): each returns the typed value or throws
 * InvalidArgumentError whose message names the field and what was expected. Messages quote input only
 * through `clip`, so a hostile request never comes back at its own length.
 */
import { InvalidArgumentError } from "../errors/index.ts";

/** At most `max` characters of `text`, marked when cut: what an error message may quote of the input. */
export function clip(text: string, max = 64): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} chars)`;
}

/** What a JSON value is, for a message: "null", "an array", "an object", "a string"... */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** `value` as a JSON object (not null, not an array). */
export function jsonObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InvalidArgumentError(`${where}: must be a JSON object, got ${jsonKind(value)}`);
  return value as Record<string, unknown>;
}

/** Refuses fields other than `allowed`, so a typo (`"url"` for `"urls"`) is an error, not an empty request. */
export function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length > 0)
    throw new InvalidArgumentError(
      `${where}: unknown field${extra.length > 1 ? "s" : ""} ${extra
        .slice(0, 5)
        .map((k) => `"${clip(k, 32)}"`)
        .join(", ")}${extra.length > 5 ? ` and ${extra.length - 5} more` : ""} (allowed: ${allowed.join(", ")})`,
    );
}
