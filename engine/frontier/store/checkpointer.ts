/**
 * The store's WAL checkpoints on a thread of their own. A checkpoint copies the pages the WAL holds into the
 * database file and syncs it; run by SQLite inside a commit (its auto-checkpoint), it took 15.6-17 µs of every
 * dispatched task's wall time on the frontier's thread (bench/README.md, "Where a dispatched task's time
 * goes"). Here a Bun Worker with its own connection to the same file runs a PASSIVE checkpoint every
 * CHECKPOINT_INTERVAL_MS (checkpoint-worker.ts), which WAL mode allows beside a writer: it neither waits for
 * nor blocks the frontier's commits.
 *
 * The WAL stays bounded as before: the writer's own auto-checkpoint still runs when the WAL reaches its size
 * (store-file.ts), and then has only the pages this thread has not copied yet; once every page is copied,
 * the writer's next transaction starts the WAL again from its beginning. The thread alone never gets there
 * while commits go on (pages come in behind it), and a writer's checkpoint that finds the thread at work
 * gives up until its next commit, so once the WAL is past that size the thread stands aside for a while. Nothing here is needed for
 * durability: a commit is durable in the WAL (kill -9 loses nothing committed), and `stop` comes before the
 * store's final checkpoint on close.
 *
 * Cost: one thread and one SQLite connection per store (its page cache stays small: it reads no table).
 */
import { WAL_AUTOCHECKPOINT_PAGES } from "./store-file.ts";

/** How often the thread checkpoints (a commit of 512 results writes about 6 MB of WAL, a few a second). */
const CHECKPOINT_INTERVAL_MS = 100;
/** Turns the thread stands aside once the WAL is past the writer's checkpoint size (its commits are ~40 ms apart). */
const STAND_ASIDE_TURNS = 5;
/** How long `stop` waits for a checkpoint under way to end (a WAL of 64 MiB takes about 0.1-0.4 s). */
const STOP_WAIT_MS = 10_000;

/** Slots of the shared Int32Array: stop asked, thread done, checkpoints run (for tests). */
export const CHECKPOINT_FLAGS = { stop: 0, done: 1, runs: 2 } as const;

/** The message that starts the thread. */
export interface CheckpointerStart {
  path: string;
  flags: SharedArrayBuffer;
  intervalMs: number;
  /** WAL pages past which the writer checkpoints itself (store-file.ts); the thread then waits `standAsideMs`. */
  writerCheckpointPages: number;
  standAsideMs: number;
}

export class BackgroundCheckpointer {
  private readonly flags = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private stopped = false;
  /** The thread could not start (its module failed to load): nothing to wait for. */
  private failed = false;

  /** Starts checkpointing the store file at `path` (a file SQLite opened in WAL mode). */
  constructor(path: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url).href);
    // The thread never keeps the process alive: a store left open does not hold a process at its end.
    this.worker.unref();
    // Without the thread the writer's own checkpoints still run (store-file.ts): a failure costs speed only.
    this.worker.addEventListener("error", () => {
      this.failed = true;
    });
    const start: CheckpointerStart = {
      path,
      flags: this.flags.buffer as SharedArrayBuffer,
      intervalMs,
      writerCheckpointPages: WAL_AUTOCHECKPOINT_PAGES,
      standAsideMs: STAND_ASIDE_TURNS * intervalMs,
    };
    this.worker.postMessage(start);
  }

  /** Checkpoints the thread has run (tests). */
  get runs(): number {
    return Atomics.load(this.flags, CHECKPOINT_FLAGS.runs);
  }

  /**
   * Stops the thread: a checkpoint under way ends first, then its connection is closed. Synchronous, so the
   * store's `close` can run its final checkpoint right after. Idempotent.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.flags, CHECKPOINT_FLAGS.stop, 1);
    Atomics.notify(this.flags, CHECKPOINT_FLAGS.stop);
    // A thread that never started (the process is ending) has nothing open: the wait is bounded.
    if (!this.failed) Atomics.wait(this.flags, CHECKPOINT_FLAGS.done, 0, STOP_WAIT_MS);
    this.worker.terminate();
  }
}
