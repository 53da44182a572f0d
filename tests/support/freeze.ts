/**
 * Freezing a server as one that stops answering: SIGSTOP, then waiting until the kernel shows every
 * thread of the process stopped. `kill` returns once the signal is queued, and on a busy box a thread of
 * the target can still run for a few milliseconds after (seen: /proc said "R" right after the kill about
 * half the time with two busy loops beside it, and once in 30 tries the frozen NATS server still stored
 * and confirmed a publish sent after the kill, in 1 ms). A test that says "the server is frozen" must
 * mean it from its next line on. Linux only (/proc), as CI is.
 *
 * Uses node:fs only, so the helper also runs under Deno.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The one-letter state of every thread of `pid` (see proc(5): R running, S sleeping, T stopped...). */
function threadStates(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces; the state follows the last ") ".
    return stat.charAt(stat.lastIndexOf(") ") + 2);
  });
}

/** Stops `pid` (SIGSTOP) and resolves once all its threads are stopped; throws after `timeoutMs`. */
export async function freeze(pid: number, timeoutMs = 10_000): Promise<void> {
  process.kill(pid, "SIGSTOP");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = threadStates(pid);
    if (states.every((s) => s === "T")) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within ${timeoutMs} ms (thread states: ${states.join("")})`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Lets a frozen `pid` run again (SIGCONT). */
export function thaw(pid: number): void {
  process.kill(pid, "SIGCONT");
}
