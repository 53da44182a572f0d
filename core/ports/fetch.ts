/**
 * The fetch path's ports: the HTTP step it calls (`Fetcher`), where it keeps pages (`PageStore`), and how
 * a frontier's caller runs a task (`TaskRunner`), in this thread, on other threads, or on a fetch node.
 */
import type {
  CapturedExchange,
  DiscoveredUrl,
  FetchOutcome,
  FetchRequest,
  FetchResult,
  FetchTask,
  RecordLocation,
  StreamedResponseHead,
  StreamOutcome,
} from "../model/index.ts";

/**
 * The HTTP step. Contract: `fetch` never rejects for anything a server or the network can do; every failure
 * is an `error` outcome whose kind says how to react. It rejects only for a bug.
 */
export interface Fetcher {
  fetch(req: FetchRequest): Promise<FetchOutcome>;
}

/**
 * The HTTP step for a body too big to hold (a 50 MB sitemap): the body is handed to `read` as a stream of
 * chunks, already decoded from its Content-Encoding, and never gathered whole. Contract: as `Fetcher`,
 * it never rejects for a server or network problem, including a body that fails to decode or breaks
 * half-way (an `error` outcome, whatever `read` had made of it so far); `read` may stop early (return
 * without reading to the end), and the connection is then dropped; the response deadline covers `read`.
 * `read` counts the decoded bytes it takes and stops at its own limit, `maxBytes`; the fetcher caps the
 * encoded bytes near it, so a body that decodes to nothing cannot run on.
 */
export interface StreamingFetcher {
  stream<T>(
    req: FetchRequest,
    read: (head: StreamedResponseHead, body: AsyncIterable<Uint8Array>) => Promise<T>,
    maxBytes: number,
  ): Promise<StreamOutcome<T>>;
}

/**
 * Where fetched exchanges are kept (the WARC writer). Contract: resolved means written, with where the
 * response (or revisit) record and the page's text record lie (nothing: a store that keeps no locations);
 * a rejection is a broken store.
 */
export interface PageStore {
  write(exchange: CapturedExchange): Promise<StoredRecords | void>;
}

/** Where one exchange's records went: its response (or revisit) record, and its text record if one was written. */
export interface StoredRecords {
  warc: RecordLocation;
  text?: RecordLocation;
  /** The response (or revisit) record's WARC-Record-ID, `<urn:uuid:...>`: what a conversion record of the same capture refers to. */
  recordId?: string;
}

/** The outcome of one task: the result for the URL's owner and the links for their hosts' owners. */
export interface WorkOutput {
  result: FetchResult;
  links: DiscoveredUrl[];
}

/**
 * Runs fetch tasks. Contract: `run` resolves with the task's output; it rejects only for a bug, a broken
 * store, or an abort through `signal`. A task rejected is not done: its caller gives it back.
 */
export interface TaskRunner {
  run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput>;
}
