/**
 * The output port of `crawlctl` commands. Commands write through it instead of `console`, so tests can
 * capture what a user would see and so many result lines are written in one batch (one process start
 * answers thousands of URLs quickly).
 */
import { ConfigError } from "../core/config/index.ts";

export interface CliIo {
  /** Writes text to standard output; the caller supplies newlines. */
  out(text: string): void;
  /** Writes text to standard error; the caller supplies newlines. */
  err(text: string): void;
  /** Reads a file as UTF-8 text; throws with a message naming the path when it cannot. */
  readText(path: string): Promise<string>;
}

/** Thrown by a command for a bad invocation: a ConfigError, so the process kit prints the message and the usage, exit 2. */
export class UsageError extends ConfigError {
  override name = "UsageError";
}
