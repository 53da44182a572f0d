/**
 * Retrying one S3 request in place: a part that meets a 500 or a reset connection is sent again after a
 * short pause, so a blip does not restart a gigabyte upload. Only retryable S3Errors are retried, a few
 * times, with doubling pauses; anything else, or the last failure, goes to the caller (the uploader then
 * retries the whole file later, with its own, longer backoff).
 */
import { S3Error } from "./errors.ts";

export interface RequestRetry {
  /** Tries in all (1: no retry). */
  attempts: number;
  /** Pause before the second try; doubles for each later one. */
  firstDelayMs: number;
}

export const DEFAULT_REQUEST_RETRY: RequestRetry = { attempts: 3, firstDelayMs: 250 };

export async function withRetry<T>(
  retry: RequestRetry,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
  onRetry?: (error: S3Error) => void,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof S3Error) || !error.retryable || n >= retry.attempts || signal?.aborted) throw error;
      onRetry?.(error);
      await pause(retry.firstDelayMs * 2 ** (n - 1), signal);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
