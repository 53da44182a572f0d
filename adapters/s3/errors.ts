/**
 * What went wrong talking to the object store, and what to do about it. `retryable` is the reaction:
 * true for what passes by itself (the store unreachable or timing out, 5xx, 429 / SlowDown, a request
 * timeout on the store's side), false for what will fail the same way until someone changes something
 * (access denied, no such bucket, a malformed request). The uploader keeps files either way; the flag
 * tells it how soon to try again and how loudly to log.
 */

export class S3Error extends Error {
  override name = "S3Error";
  constructor(
    message: string,
    /** HTTP status, or 0 when no response arrived (connection refused, reset, timeout). */
    readonly status: number,
    /** S3's error code (`NoSuchBucket`, `SlowDown`...), or a local one (`NetworkError`, `Timeout`, `VerifyFailed`). */
    readonly code: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const RETRYABLE_CODES = new Set([
  "SlowDown",
  "RequestTimeout",
  "RequestTimeTooSkewed",
  "InternalError",
  "ServiceUnavailable",
  "Throttling",
  "ThrottlingException",
]);

export function isRetryableStatus(status: number, code: string): boolean {
  return status >= 500 || status === 429 || RETRYABLE_CODES.has(code);
}

/** The error for a response that is not 2xx, with S3's `<Code>` and `<Message>` when the body has them. */
export function responseError(what: string, status: number, body: string): S3Error {
  const code = xmlValue(body, "Code") ?? `Http${status}`;
  const message = xmlValue(body, "Message");
  return new S3Error(`${what}: ${status} ${code}${message ? ` (${message})` : ""}`, status, code, isRetryableStatus(status, code));
}

/** The error for a request that got no response at all. */
export function transportError(what: string, error: unknown): S3Error {
  const timeout = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  const detail = error instanceof Error ? error.message : String(error);
  return new S3Error(
    `${what}: ${timeout ? "no response in time" : "store unreachable"} (${detail})`,
    0,
    timeout ? "Timeout" : "NetworkError",
    true,
    { cause: error },
  );
}

/** The text of the first `<tag>…</tag>` in an S3 XML document, entities decoded. S3's documents are flat enough for this. */
export function xmlValue(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? decodeEntities(m[1]!) : undefined;
}

/** Every `<tag>…</tag>` block in order. */
export function xmlBlocks(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]!);
}

function decodeEntities(s: string): string {
  return s.replace(/&(quot|amp|lt|gt|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    switch (e) {
      case "quot":
        return '"';
      case "amp":
        return "&";
      case "lt":
        return "<";
      case "gt":
        return ">";
      case "apos":
        return "'";
      default:
        return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    }
  });
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
