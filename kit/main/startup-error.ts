/**
 * A process that cannot start says so in one line that names what failed and what to do about it, and
 * exits 1: `cannot connect to NATS at nats://10.0.0.5:4222: connection refused; check that nats-server
 * runs there with -js, or give --nats-url`. `startStep` wraps one step of a start-up in that message; a
 * StartupError thrown directly (a data directory held by another process) carries its own.
 */
import { errorInfo } from "../log/index.ts";

/** Fatal at start-up; the message is meant for the operator and says what to do. */
export class StartupError extends Error {
  override name = "StartupError";
}

/**
 * Runs `step` (`doing` is what it does: "connect to NATS at ..."); a failure becomes a StartupError
 * `cannot <doing>: <what went wrong>; <whatToDo>` with the failure as its cause.
 */
export async function startStep<T>(doing: string, whatToDo: string, step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`cannot ${doing}: ${errorInfo(error).message}; ${whatToDo}`, { cause: error });
  }
}
