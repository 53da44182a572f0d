/**
 * Opens the frontier node's store under its data dir. A damaged store (core/errors StoreDamagedError: found
 * by the check at open) is handled by what the node can recover: with replicated partition state, the
 * damaged file (with its -wal and -shm) is moved aside, named with the time, and the node starts with an
 * empty store, so every partition it serves is rebuilt from the replica before it is served; without, the
 * node refuses to start, saying which file, what it held and what to do.
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { StoreDamagedError } from "../core/errors/index.ts";
import type { Log } from "../kit/log/index.ts";
import { FrontierStore, type FrontierStoreOptions } from "../engine/frontier/index.ts";

export function openNodeStore(
  dataDir: string,
  options: FrontierStoreOptions & { journal: boolean },
  log: Log,
  fatal: (message: string) => Error,
): FrontierStore {
  const path = join(dataDir, "frontier.sqlite");
  try {
    return FrontierStore.open(path, options);
  } catch (error) {
    if (!(error instanceof StoreDamagedError)) throw error;
    if (!options.journal) {
      throw fatal(
        `${error.message}. It is this node's only copy of its partitions (queued URLs, URL states, host politeness ` +
          `state, robots.txt verdicts): the pages already fetched are safe in the fetch nodes' WARC files. Either ` +
          `recover it (sqlite3 ${path} ".recover" | sqlite3 ${path}.recovered, then move that file in its place and ` +
          `remove ${path}-wal and ${path}-shm), or move ${path}* aside and start again: the node then starts empty and ` +
          `the URLs queued on it are lost. With --replicate-state (the default) the node rebuilds its partitions instead.`,
      );
    }
    const aside = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
    log.error(
      "the frontier store is damaged: it was moved aside and the node starts with an empty store; every partition it serves is rebuilt from the replicated state before it is served",
      { file: path, movedTo: aside, damage: error.detail },
    );
    return FrontierStore.open(path, options);
  }
}
