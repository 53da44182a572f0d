/**
 * The one kind of error a process reports as "bad configuration" (fatal, never retry: fix the input and
 * start again): a bad flag or env var, a missing required value, an argument that makes no sense. It
 * carries one line per problem so every problem is reported at once. Every process's own configuration
 * error extends it, and the process kit (kit/main) answers it the same way everywhere: the message and the
 * usage on stderr, exit code 2.
 */
export class ConfigError extends Error {
  override name = "ConfigError";

  /** `problems` defaults to the message itself, for a single problem. */
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }

  /** A heading over the problems, one per line: `invalid X configuration:\n  - a\n  - b`. */
  static listing(heading: string, problems: readonly string[]): string {
    return `${heading}:\n  - ${problems.join("\n  - ")}`;
  }
}
