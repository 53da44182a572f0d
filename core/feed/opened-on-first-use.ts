/**
 * A page feed opened when first used, and again at the next use after opening failed. Opening the cluster's
 * stream asks the NATS cluster (region) that holds it, so a process that opened it at its start could not
 * start while that region is away: a frontier node would not crawl (its records wait in its outbox), a
 * coordinator would not serve anything. With this, both start, and the feed answers once it can be opened.
 * `open()` opens it now (a coordinator calls it at its start and on a timer, so the stream's retention is
 * applied as soon as the region answers); every failure is thrown to the caller, nothing is cached.
 */
import type { PageFeed } from "../ports/index.ts";

export interface OpenedOnFirstUse extends PageFeed {
  /** Opens the feed unless it is open; rejects with the opening's error. */
  open(): Promise<void>;
  /** Whether the feed has been opened. */
  readonly isOpen: boolean;
}

export function openedOnFirstUse(openFeed: () => Promise<PageFeed>): OpenedOnFirstUse {
  let opening: Promise<PageFeed> | undefined;
  let opened: PageFeed | undefined;
  const feed = (): Promise<PageFeed> => {
    if (opened) return Promise.resolve(opened);
    opening ??= openFeed().then(
      (f) => (opened = f),
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return {
    get isOpen() {
      return opened !== undefined;
    },
    async open() {
      await feed();
    },
    async publish(items) {
      await (await feed()).publish(items);
    },
    async read(job, after, limit) {
      return (await feed()).read(job, after, limit);
    },
    async close() {
      await opened?.close();
    },
  };
}
