/**
 * The one status line `crawl` keeps at the bottom of a terminal, rewritten in place, sharing stderr with
 * the log: a log line written while the status line shows first erases it (so the two never run into
 * one line), and the next status redraws below. `runtime` is the process's runtime with that stderr, the
 * one `crawl` gives the process kit.
 */
import type { RuntimePort } from "../kit/runtime.ts";

export interface TerminalStatus {
  /** The runtime whose stderr clears the status line before writing. */
  readonly runtime: RuntimePort;
  /** Shows `text` as the status line, in place of the previous one. */
  draw(text: string): void;
  /** Erases the status line. */
  clear(): void;
}

const ERASE_LINE = "\r\x1b[2K";

export function terminalStatus(host: RuntimePort): TerminalStatus {
  let shown = false;
  const clear = () => {
    if (!shown) return;
    shown = false;
    host.stderr(ERASE_LINE);
  };
  return {
    runtime: {
      ...host,
      stderr(text) {
        clear();
        host.stderr(text);
      },
    },
    draw(text) {
      shown = true;
      host.stderr(`${ERASE_LINE}${text}`);
    },
    clear,
  };
}
