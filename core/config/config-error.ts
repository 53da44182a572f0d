/**
 * The one kind of error a process reports as "bad configuration" (fatal, never retry: fix the input and
 * start again): a bad flag or env var, a missing required value, an argument that makes no sense. It
 * carries one line per problem so every problem is reported at once. Every process's own configuration
 * error is made by `ConfigError.titled` (one line each), and the process kit (kit/main) answers them all
 * the same way: the message and the usage on stderr, exit code 2. An error's name is its class's name.
 */
export class ConfigError extends Error {
  /** `problems` defaults to the message itself, for a single problem. */
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** A heading over the problems, one per line: `invalid X configuration:\n  - a\n  - b`. */
  static listing(heading: string, problems: readonly string[]): string {
    return `${heading}:\n  - ${problems.join("\n  - ")}`;
  }

  /**
   * A ConfigError class built from a list of problems under `heading`:
   * `class CoordinatorConfigError extends ConfigError.titled("invalid coordinator configuration") {}`.
   */
  static titled(heading: string) {
    return class extends ConfigError {
      constructor(problems: readonly string[]) {
        super(ConfigError.listing(heading, problems), problems);
      }
    };
  }
}
