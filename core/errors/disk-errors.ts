/**
 * Telling disk trouble apart from other failures, whatever raised it: SQLite (`SQLITE_FULL`,
 * `SQLITE_CORRUPT`, `SQLITE_NOTADB` in an error's `code`), Node/Bun/Deno file APIs (`ENOSPC`), or an error
 * that crossed a thread or process boundary with only its message left. The reactions: a full disk is
 * waited out (intake stops and resumes when space returns, nothing is lost); a damaged store stops the
 * process with a message that names the file (a frontier node with a replica rebuilds it instead).
 */

const FULL_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
const FULL_TEXT = /no space left on device|disk quota exceeded|database or disk is full/i;
const DAMAGE_CODES = new Set(["SQLITE_CORRUPT", "SQLITE_NOTADB"]);
const DAMAGE_TEXT = /database disk image is malformed|file is not a database/i;

/** Whether `error` (or one of its causes) says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  return matches(error, FULL_CODES, FULL_TEXT);
}

/** Whether `error` (or one of its causes) says an SQLite file is damaged (corrupt, torn, or not SQLite at all). */
export function isStoreDamage(error: unknown): boolean {
  return matches(error, DAMAGE_CODES, DAMAGE_TEXT);
}

function matches(error: unknown, codes: ReadonlySet<string>, text: RegExp): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e === "object") {
      const code = (e as { code?: unknown }).code;
      if (typeof code === "string" && codes.has(code)) return true;
      const message = (e as { message?: unknown }).message;
      if (typeof message === "string" && text.test(message)) return true;
      e = (e as { cause?: unknown }).cause;
    } else {
      return typeof e === "string" && text.test(e);
    }
  }
  return false;
}

/**
 * An SQLite store that is damaged: corrupt, torn, or not SQLite at all. Fatal for the process that found it
 * (its message says which file and what the check said); what to do about it is the process's to say.
 */
export class StoreDamagedError extends Error {
  override readonly name = "StoreDamagedError";
  readonly retry = false;
  constructor(
    readonly path: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${path} is damaged: ${detail}`, options);
  }
}

/** Above this size a store is not checked page by page at start (about 7 s per GiB on a busy 2-core box). */
export const QUICK_CHECK_MAX_BYTES = 1024 ** 3;

/**
 * Checks an SQLite file as it is opened: reads its schema (a file that is not SQLite, or whose first pages
 * are damaged, fails here) and, when it is at most `maxBytes` on disk, runs `PRAGMA quick_check` over every
 * page, so a damaged store is found at start, bounded in time, rather than mid-crawl. Throws
 * StoreDamagedError; returns whether the full check ran. `query` runs one statement on the open database.
 */
export function checkSqliteStore(
  path: string,
  sizeBytes: number,
  query: (sql: string) => Array<Record<string, unknown>>,
  maxBytes = QUICK_CHECK_MAX_BYTES,
): boolean {
  const run = (sql: string) => {
    try {
      return query(sql);
    } catch (error) {
      if (isStoreDamage(error)) throw new StoreDamagedError(path, (error as Error).message, { cause: error });
      throw error;
    }
  };
  run("SELECT name FROM sqlite_master LIMIT 1");
  if (sizeBytes > maxBytes) return false;
  const rows = run("PRAGMA quick_check(5)");
  const problems = rows.map((r) => String(Object.values(r)[0])).filter((v) => v !== "ok");
  if (problems.length > 0) throw new StoreDamagedError(path, `PRAGMA quick_check found: ${problems.join("; ")}`);
  return true;
}
