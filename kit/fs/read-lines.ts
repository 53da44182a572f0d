/**
 * A text file as a stream of lines, in bounded memory whatever its size: a seeds file of ten million lines
 * (a top-sites list is a million) is read a chunk at a time, never whole. A line longer than `maxLineBytes`
 * is not kept (a file with no newlines at all would otherwise be held whole): it comes out as `tooLong`,
 * with its number, and reading goes on at the next line.
 *
 * Lines end at `\n`; a `\r` before it is dropped. Bytes are decoded as UTF-8 (a character split across
 * chunks decodes whole).
 */
import { createReadStream, statSync } from "node:fs";

export interface FileLine {
  /** The line's text, without its line end ("" for a line too long). */
  readonly text: string;
  /** 1-based. */
  readonly lineNo: number;
  /** The line was longer than maxLineChars and was skipped. */
  readonly tooLong: boolean;
  /** Bytes of the file read so far (for progress against `fileSize`). */
  readonly bytesRead: number;
}

export interface ReadLinesOptions {
  /** Characters; default 65,536: far above any URL a server accepts (most stop at 8 KiB). */
  readonly maxLineChars?: number;
  /** Read size; default 1 MiB. */
  readonly chunkBytes?: number;
}

/** The file could not be opened or read (not: the caller failed while handling a line). */
export class FileReadError extends Error {
  override name = "FileReadError";
  constructor(
    readonly path: string,
    /** The system's code (ENOENT, EISDIR...) or message. */
    readonly reason: string,
  ) {
    super(`cannot read ${path}: ${reason}`);
  }
}

/** Reads `path` line by line. Throws a FileReadError naming the path when it cannot be opened or read. */
export async function* readLines(path: string, opts: ReadLinesOptions = {}): AsyncGenerator<FileLine> {
  const maxLine = opts.maxLineChars ?? 64 * 1024;
  const stream = createReadStream(path, { highWaterMark: opts.chunkBytes ?? 1024 * 1024 });
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let skipping = false;
  let lineNo = 0;
  let bytesRead = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      bytesRead += chunk.byteLength;
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let nl = text.indexOf("\n", start); nl >= 0; nl = text.indexOf("\n", start)) {
        lineNo++;
        const piece = text.slice(start, nl);
        start = nl + 1;
        if (skipping || pending.length + piece.length > maxLine) {
          skipping = false;
          pending = "";
          yield { text: "", lineNo, tooLong: true, bytesRead };
          continue;
        }
        const line = pending + piece;
        pending = "";
        yield { text: line.endsWith("\r") ? line.slice(0, -1) : line, lineNo, tooLong: false, bytesRead };
      }
      if (!skipping) {
        pending += text.slice(start);
        // Characters, not bytes, but a line of more characters than the cap surely has more bytes.
        if (pending.length > maxLine) {
          skipping = true;
          pending = "";
        }
      }
    }
    const rest = pending + decoder.decode();
    if (skipping) yield { text: "", lineNo: lineNo + 1, tooLong: true, bytesRead };
    else if (rest.length > 0) yield { text: rest.endsWith("\r") ? rest.slice(0, -1) : rest, lineNo: lineNo + 1, tooLong: false, bytesRead };
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw new FileReadError(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  } finally {
    stream.destroy();
  }
}

/** The file's size in bytes, or undefined when it has none (a pipe). */
export function fileSize(path: string): number | undefined {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}
