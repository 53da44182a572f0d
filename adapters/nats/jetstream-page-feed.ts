/**
 * PageFeed over JetStream: the stream CRAWL_PAGES (subjects `crawl.pages.>`, file storage, limits
 * retention by age and size, direct gets allowed), one message per record on `crawl.pages.<job>`, its
 * `Nats-Msg-Id` the record's id, so a record published again within the duplicate window is stored once.
 * A page of one job is read with direct gets of the next message on the job's subject from a sequence
 * (no consumer is made, so reading costs the server nothing to keep); the cursor is the stream sequence.
 * Services read the stream with durable consumers of their own (README). The connection is borrowed.
 */
import { nanos, type NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { FEED_STREAM, FEED_SUBJECTS, feedSubject, type PageRecord } from "../../core/feed/index.ts";
import { UnavailableError } from "../../core/errors/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import { isStreamNotFound } from "./errors.ts";

export interface JetStreamPageFeedOptions {
  /** Stream name; default CRAWL_PAGES (tests use fresh names). */
  stream?: string;
  /**
   * Retention, set when the stream is made and brought in line when given (the coordinator gives them,
   * from its config table); a frontier node opens the stream without them and changes nothing.
   */
  retention?: { maxAgeMs: number; maxBytes: number; duplicateWindowMs: number };
  replicas?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The duplicate window when the stream is made by a node without the retention settings. */
const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60_000;

export class JetStreamPageFeed implements PageFeed {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subjectPrefix: string,
  ) {}

  /** Opens the feed, making its stream when missing (and applying `retention` when given). */
  static async open(nc: NatsConnection, opts: JetStreamPageFeedOptions = {}): Promise<JetStreamPageFeed> {
    const stream = opts.stream ?? FEED_STREAM;
    const subjects = opts.stream ? `${stream.toLowerCase()}.>` : FEED_SUBJECTS;
    const jsm = await jetstreamManager(nc);
    const r = opts.retention;
    const want = {
      name: stream,
      subjects: [subjects],
      storage: "file" as const,
      retention: "limits" as const,
      allow_direct: true,
      num_replicas: opts.replicas ?? 1,
      duplicate_window: nanos(r?.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
      ...(r ? { max_age: nanos(r.maxAgeMs), max_bytes: r.maxBytes } : {}),
    };
    try {
      const info = await jsm.streams.info(stream);
      if (r) await jsm.streams.update(stream, { ...info.config, ...want });
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
      try {
        await jsm.streams.add(want as Parameters<JetStreamManager["streams"]["add"]>[0]);
      } catch (addErr) {
        // Made by another process meanwhile: as good.
        await jsm.streams.info(stream).catch(() => {
          throw addErr;
        });
      }
    }
    return new JetStreamPageFeed(jetstream(nc), jsm, stream, subjects.slice(0, -1));
  }

  private subject(job: string): string {
    return this.subjectPrefix === "crawl.pages." ? feedSubject(job) : `${this.subjectPrefix}${job}`;
  }

  async publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void> {
    try {
      await Promise.all(
        items.map(({ id, record }) =>
          this.js.publish(this.subject(record.job), encoder.encode(JSON.stringify(record)), {
            msgID: id,
            expect: { streamName: this.stream },
          }),
        ),
      );
    } catch (err) {
      throw new UnavailableError(
        `the page feed did not take ${items.length} record(s): ${(err as Error).message}; publishing them again is safe`,
        {
          cause: err,
        },
      );
    }
  }

  async read(job: string, after: number, limit: number): Promise<{ records: PageRecord[]; next: number }> {
    const records: PageRecord[] = [];
    let next = after;
    try {
      while (records.length < limit) {
        const m = await this.jsm.direct.getMessage(this.stream, { seq: next + 1, next_by_subj: this.subject(job) });
        if (!m) break;
        records.push(JSON.parse(decoder.decode(m.data)) as PageRecord);
        next = m.seq;
      }
    } catch (err) {
      throw new UnavailableError(`the page feed could not be read: ${(err as Error).message}`, { cause: err });
    }
    return { records, next };
  }

  async close(): Promise<void> {}
}
