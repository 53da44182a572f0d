/**
 * The one error of the codec: a message that cannot be converted. It is never worth retrying (the same
 * bytes fail the same way), so a consumer terminates such a message rather than nak'ing it.
 */
export class CodecError extends Error {
  override readonly name = "CodecError";
  /** The reaction: a malformed message is dropped (terminated), never redelivered. */
  readonly retry = false;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
