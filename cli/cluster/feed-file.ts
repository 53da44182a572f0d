/**
 * The feed URLs of a job's `--feeds FILE` (crawlctl job create|seed): one URL a line, blank lines and `#`
 * comments skipped. A job call carries at most the coordinator's per-request limit of URLs, so the file is
 * read whole but refused past `max` lines of URLs, before anything is sent.
 */
import { FileReadError, readLines } from "../../kit/fs/index.ts";
import { UsageError } from "../io.ts";

/** The coordinator's default per-request limit (seeds and feeds together). */
export const MAX_JOB_FEEDS = 10_000;

export async function readFeedFile(file: string, max = MAX_JOB_FEEDS): Promise<string[]> {
  const feeds: string[] = [];
  try {
    for await (const line of readLines(file)) {
      if (line.tooLong) throw new UsageError(`--feeds ${file}:${line.lineNo}: line too long to be a URL`);
      const url = line.text.trim();
      if (url.length === 0 || url.startsWith("#")) continue;
      if (feeds.length === max) throw new UsageError(`--feeds ${file}: more than ${max} URLs; a job call carries at most ${max}`);
      feeds.push(url);
    }
  } catch (error) {
    if (error instanceof FileReadError) throw new UsageError(`--feeds: ${error.message}`);
    throw error;
  }
  return feeds;
}
