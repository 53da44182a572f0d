/**
 * Checked conversions between the model's JavaScript numbers and protobuf's integer types. uint32 fields
 * reject what the wire cannot carry (a negative partition would otherwise wrap silently); int64/uint64
 * fields are bigint in the generated code (`forceLong=bigint`) and come back as numbers only when they fit
 * in 2^53, so a corrupt or hostile message fails loudly instead of turning into a wrong timestamp.
 */
import { CodecError } from "./errors.ts";

const UINT32_MAX = 0xffff_ffff;

/** A model integer for a uint32 field; `round` accepts fractional values (durations) by rounding them. */
export function toUint32(field: string, value: number, round = false): number {
  const n = round ? Math.round(value) : value;
  if (!Number.isInteger(n) || n < 0 || n > UINT32_MAX) {
    throw new CodecError(`${field} must be an integer in [0, ${UINT32_MAX}], got ${value}`);
  }
  return n;
}

/** A model number (epoch ms, byte count) for an int64 field; fractional milliseconds are rounded. */
export function toInt64(field: string, value: number): bigint {
  return BigInt(toSafeInteger(field, value));
}

/** toInt64's check and rounding, for a hand-written encoder that writes the number itself. */
export function toSafeInteger(field: string, value: number): number {
  const n = Math.round(value);
  if (!Number.isSafeInteger(n)) throw new CodecError(`${field} must be a safe integer, got ${value}`);
  return n;
}

/** As toInt64, for a uint64 field. */
export function toUint64(field: string, value: number): bigint {
  const n = toInt64(field, value);
  if (n < 0n) throw new CodecError(`${field} must not be negative, got ${value}`);
  return n;
}

/** An int64/uint64 from the wire, as a number; throws when it does not fit exactly. */
export function fromInt64(field: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new CodecError(`${field} ${value} does not fit in a JavaScript number`);
  }
  return Number(value);
}

/** Proto3 strings have no presence: the empty string means "not set". */
export function optional(value: string): string | undefined {
  return value === "" ? undefined : value;
}
