/**
 * Publishes discovered links in batches per (region, partition): the links that pages fetched within a few
 * tens of milliseconds found for one partition travel as one message, instead of one message per page and
 * partition. Most pages link to a handful of other hosts, each in its own partition, so without this a page
 * cost several JetStream messages (each stored, delivered, acked and committed by its owner). `add`
 * resolves only once every link it was given is published, so a task is still acked only after its links
 * are durable. Nothing needs flushing on stop: a waiting batch goes out on its own timer (`delayMs`), and a
 * stopping node waits for its tasks, each of which waits for its batch.
 *
 * Per page, only its links are pushed and one promise per batch they went into is handed back (a batch's
 * pages share it): no promise, slice or waiter per page and group, which took 27 against 19 µs per page of a
 * fetch node's CPU (29 links of five hosts, grouping included, bench/README.md).
 */
import type { DiscoveredUrl } from "../core/model/index.ts";
import type { OwnerGroup } from "../core/addressing/index.ts";

/** The links waiting for one (region, partition), and the one promise every page that added some waits on. */
interface Slot {
  region: string;
  partition: number;
  urls: DiscoveredUrl[];
  /** Settles when this batch is published (or refused): shared by every page in it, one per batch, not per page. */
  sent: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface LinkBatcherOptions {
  delayMs: number;
  /** A batch this large is published at once. */
  maxUrls: number;
}

export class LinkBatcher {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly publish: (region: string, partition: number, urls: readonly DiscoveredUrl[]) => Promise<void>,
    private readonly opts: LinkBatcherOptions = { delayMs: 50, maxUrls: 1_000 },
  ) {}

  /** Resolves once every link of `groups` is published; rejects when a batch holding some of them was refused. */
  add(groups: readonly OwnerGroup<DiscoveredUrl>[]): Promise<void> {
    const batches: Promise<void>[] = [];
    for (const group of groups) this.addGroup(group, batches);
    if (batches.length === 1) return batches[0]!;
    return Promise.all(batches).then(() => undefined);
  }

  /**
   * Adds a group's links to its slot, `maxUrls` at most per message: a sitemap's 50,000 entries for one
   * host leave as 50 messages, not as one too large for the bus. Pushes onto `batches` each batch its links
   * went into that `batches` does not hold yet (a page's links for one partition are usually one batch).
   */
  private addGroup(group: OwnerGroup<DiscoveredUrl>, batches: Promise<void>[]): void {
    const key = `${group.region}\u0000${group.partition}`;
    const urls = group.urls;
    let next = 0;
    do {
      let slot = this.slots.get(key);
      if (!slot) this.slots.set(key, (slot = this.newSlot(group.region, group.partition)));
      const end = Math.min(urls.length, next + this.opts.maxUrls - slot.urls.length);
      for (; next < end; next++) slot.urls.push(urls[next]!);
      if (!batches.includes(slot.sent)) batches.push(slot.sent);
      if (slot.urls.length >= this.opts.maxUrls) void this.send(key);
      else slot.timer ??= setTimeout(() => void this.send(key), this.opts.delayMs);
    } while (next < urls.length);
  }

  private newSlot(region: string, partition: number): Slot {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const sent = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { region, partition, urls: [], sent, resolve, reject, timer: undefined };
  }

  private async send(key: string): Promise<void> {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    if (slot.timer) clearTimeout(slot.timer);
    try {
      await this.publish(slot.region, slot.partition, slot.urls);
      slot.resolve();
    } catch (error) {
      slot.reject(error);
    }
  }
}
