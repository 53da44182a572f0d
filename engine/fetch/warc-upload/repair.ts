/**
 * Finishes a WARC file that a crash left open, so it can be shipped like any other: cuts a torn last
 * record off and keeps every complete one. The writer's crash rules make this simple (warc/writer.ts):
 * a file is only ever appended to in whole gzip members, each index line is written after its record, so
 * the damage of a kill is at most one incomplete pair of members at the very end.
 *
 * The walk starts at the end of the last indexed response record (its offset and length are in the
 * file's CDXJ index), or at the start of the file when nothing is indexed, and reads one gzip member at a
 * time: header, raw deflate data (zlib reports how many input bytes the stream used) and the 8-byte
 * trailer, whose size field must match. The file is truncated where the first incomplete member begins.
 * A member is read through a window that grows from 1 MiB up to `maxMemberBytes` (default 64 MiB), so
 * memory stays bounded; a member too large to judge ends the walk and the rest is kept as it is, since
 * dropping bytes that may be whole is worse than shipping a file whose last record a reader rejects.
 */
import { open, type FileHandle } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";

export interface RepairResult {
  /** Bytes kept (the file's new size). */
  keptBytes: number;
  /** Bytes cut off the end (0 when the file was whole). */
  droppedBytes: number;
}

const FIRST_WINDOW = 1024 * 1024;

/**
 * Truncates `path` after its last complete gzip member, starting the walk at `from` (a member boundary
 * known to be good: the end of the last indexed record, or 0).
 */
export async function repairWarcTail(path: string, from = 0, maxMemberBytes = 64 * 1024 * 1024): Promise<RepairResult> {
  const fh = await open(path, "r+");
  try {
    const size = (await fh.stat()).size;
    let pos = Math.min(from, size);
    for (;;) {
      if (pos >= size) break;
      const member = await memberLength(fh, pos, size - pos, maxMemberBytes);
      if (member === "too-large") return { keptBytes: size, droppedBytes: 0 };
      if (member === "incomplete") break;
      pos += member;
    }
    if (pos < size) {
      await fh.truncate(pos);
      await fh.datasync();
    }
    return { keptBytes: pos, droppedBytes: size - pos };
  } finally {
    await fh.close();
  }
}

/** Length of the gzip member at `pos`, "incomplete" if it is torn or not a member, "too-large" past the cap. */
async function memberLength(fh: FileHandle, pos: number, remaining: number, cap: number): Promise<number | "incomplete" | "too-large"> {
  for (let window = Math.min(FIRST_WINDOW, remaining); ; window = Math.min(window * 2, remaining)) {
    const buf = new Uint8Array(window);
    const { bytesRead } = await fh.read(buf, 0, window, pos);
    const bytes = buf.subarray(0, bytesRead);
    const header = gzipHeaderLength(bytes);
    if (header === "invalid") return "incomplete";
    if (header !== "short") {
      const inflated = tryInflate(bytes.subarray(header), cap);
      if (inflated === "too-large") return "too-large";
      if (inflated !== "short" && inflated !== "invalid") {
        const end = header + inflated.consumed + 8;
        if (end <= bytes.length) {
          const isize = new DataView(bytes.buffer, bytes.byteOffset + end - 4, 4).getUint32(0, true);
          return isize === inflated.outputLength % 2 ** 32 ? end : "incomplete";
        }
      }
      if (inflated === "invalid") return "incomplete";
    }
    // Not enough bytes in the window: grow it, unless it already holds the rest of the file.
    if (window >= remaining) return "incomplete";
    if (window >= cap) return "too-large";
  }
}

/** Length of the gzip header at the start of `b` (RFC 1952, optional fields included). */
function gzipHeaderLength(b: Uint8Array): number | "short" | "invalid" {
  if (b.length < 10) return b.length === 0 || (b[0] === 0x1f && (b.length < 2 || b[1] === 0x8b)) ? "short" : "invalid";
  if (b[0] !== 0x1f || b[1] !== 0x8b || b[2] !== 8) return "invalid";
  const flags = b[3]!;
  let at = 10;
  if (flags & 4) {
    if (b.length < at + 2) return "short";
    at += 2 + (b[at]! | (b[at + 1]! << 8));
  }
  for (const bit of [8, 16]) {
    if (flags & bit) {
      const zero = b.indexOf(0, at);
      if (zero < 0) return "short";
      at = zero + 1;
    }
  }
  if (flags & 2) at += 2;
  return at <= b.length ? at : "short";
}

type Inflated = { consumed: number; outputLength: number };

function tryInflate(deflated: Uint8Array, cap: number): Inflated | "short" | "invalid" | "too-large" {
  try {
    // `info: true` returns the engine too, whose bytesWritten is the input the deflate stream used.
    const out = inflateRawSync(deflated, { info: true, maxOutputLength: cap } as never) as unknown as {
      buffer: Uint8Array;
      engine: { bytesWritten: number };
    };
    return { consumed: out.engine.bytesWritten, outputLength: out.buffer.length };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "Z_BUF_ERROR") return "short";
    if (code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) return "too-large";
    return "invalid";
  }
}
