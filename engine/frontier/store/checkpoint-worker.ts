/**
 * The body of the background checkpointer's thread (checkpointer.ts): its own connection to the store file,
 * and a loop that runs a PASSIVE WAL checkpoint every `intervalMs` until told to stop, then closes the
 * connection and says so. A PASSIVE checkpoint copies the WAL pages every reader is done with into the
 * database and never waits for (nor blocks) the writer, so the frontier's commits go on beside it.
 *
 * The loop is synchronous on purpose: the thread has nothing else to do, and the flags it waits on are a
 * SharedArrayBuffer, so the frontier can stop it from a synchronous `close()` (messages would need the
 * event loop of both sides). Errors are swallowed: a checkpoint that fails (disk full, busy) leaves the WAL
 * to the writer's own checkpoint, which still runs when the WAL reaches its size (store-file.ts).
 */
import { Database } from "bun:sqlite";
import { CHECKPOINT_FLAGS, type CheckpointerStart } from "./checkpointer.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<CheckpointerStart>) => {
  const { path, flags: buffer, intervalMs, writerCheckpointPages, standAsideMs } = event.data;
  const flags = new Int32Array(buffer);
  let db: Database | undefined;
  try {
    if (Atomics.load(flags, CHECKPOINT_FLAGS.stop) === 0) {
      db = new Database(path, { readwrite: true, create: false });
      db.exec("PRAGMA busy_timeout = 1000");
      // The writer's durability: a checkpoint syncs the WAL before copying it, and the database after.
      db.exec("PRAGMA synchronous = NORMAL");
      const checkpoint = db.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
      let waitMs = intervalMs;
      while (Atomics.load(flags, CHECKPOINT_FLAGS.stop) === 0) {
        Atomics.wait(flags, CHECKPOINT_FLAGS.stop, 0, waitMs);
        if (Atomics.load(flags, CHECKPOINT_FLAGS.stop) !== 0) break;
        try {
          const { log } = checkpoint.get() ?? { log: 0 };
          Atomics.add(flags, CHECKPOINT_FLAGS.runs, 1);
          // Past the writer's size its next commit checkpoints the little left and starts the WAL again,
          // unless it finds this thread holding the checkpoint: stand aside (checkpointer.ts).
          waitMs = log >= writerCheckpointPages ? standAsideMs : intervalMs;
        } catch {
          // busy or failed: the next turn, or the writer's own checkpoint, copies these pages
          waitMs = intervalMs;
        }
      }
    }
  } catch {
    // could not open the file: the writer checkpoints as it did without this thread
  } finally {
    db?.close();
    Atomics.store(flags, CHECKPOINT_FLAGS.done, 1);
    Atomics.notify(flags, CHECKPOINT_FLAGS.done);
  }
};
