/**
 * What a frontier node knows of its region's fetch nodes, from their node records (re-read every
 * `everyMs`, 5 s, and 50 ms after a record appears or is deleted):
 *
 *  - **which fetch node takes a host's tasks** (host affinity, docs/cluster.md "Fetch node"): the live,
 *    non-draining fetch nodes of the region whose heartbeat is at most `staleMs` old (the death timeout),
 *    chosen by rendezvous hashing of the host's politeness key (core/cluster/fetcher-choice.ts). Every
 *    frontier node reading the same records picks the same node, so a host's requests come from one fetch
 *    process, which keeps its connection and TLS session; a node joining takes about 1/N of the hosts, one
 *    that leaves or goes silent gives its hosts to the others at the next read after its record is deleted or
 *    its heartbeat is older than `staleMs`. None known (before the first read, or no live fetch node):
 *    undefined, and the task goes to the region's shared queue, which every fetch node also pulls.
 *  - **whether a fetch node renders** (`renderAvailable`): a live fetcher whose record announces a render
 *    pool (the `renderPool` gauge, fetch-node/node.ts), heard within `renderStaleMs` (30 s). A task asking
 *    for rendering goes to the region's render queue, which only such nodes pull; with none, it would wait
 *    there for nothing, so the frontier asks for no rendering meanwhile (counted `render.no-renderer`).
 *
 * A failed read keeps the last answer: it says nothing about the fleet. Cost: one read of the node records
 * per `everyMs` and a headers-only watch of them (one small message per heartbeat of each node); per task,
 * one hash of its key and one integer mix per live fetch node.
 */
import { FetcherChoice, liveFetchers } from "../../core/cluster/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import { FrontierKeys, type PolitenessKeyMode } from "../../core/politeness/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";

export interface FetchersWatchOptions {
  state: Pick<ClusterState, "listNodes" | "watchNodes">;
  region: string;
  /** The fleet's politeness key: a host's tasks go to the fetch node of its key. Default host. */
  politenessKey?: PolitenessKeyMode;
  /** A fetch node whose heartbeat (wall clock) is older than this takes no new task (the death timeout). */
  staleMs: () => number;
  /** A rendering fetch node heard within this is counted for `renderAvailable`. Default 30 s. */
  renderStaleMs?: number;
  everyMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** The live fetch nodes changed (ids, sorted). */
  onChange?: (nodes: readonly string[]) => void;
}

const REREAD_AFTER_CHANGE_MS = 50;
const FIRST_READ_WAIT_MS = 1_000;

export class FetchersWatch {
  private choice = new FetcherChoice([]);
  private renders = false;
  private readonly keys: FrontierKeys;
  private timer: ReturnType<typeof setInterval> | undefined;
  private soon: ReturnType<typeof setTimeout> | undefined;
  private unwatch: (() => void) | undefined;
  private readonly known = new Set<string>();
  private reading: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: FetchersWatchOptions) {
    this.keys = new FrontierKeys(o.politenessKey ?? "host");
  }

  /** Whether a rendering fetch node was live at the last read. */
  get renderAvailable(): boolean {
    return this.renders;
  }

  /** The live fetch nodes at the last read (sorted ids). */
  get fetchers(): readonly string[] {
    return this.choice.nodes;
  }

  /** The fetch node whose inbox takes `task`; undefined: the shared queue (none known). */
  fetcherOf(task: Pick<FetchTask, "host">): string | undefined {
    return this.choice.of(this.keys.of(task.host));
  }

  /**
   * Reads the records (waiting up to `FIRST_READ_WAIT_MS` for it, so the first tasks already go to their
   * fetch nodes, but never holding the node's start on a cluster state that does not answer), then keeps
   * reading.
   */
  async start(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.read(), new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_READ_WAIT_MS)))]);
    clearTimeout(timer);
    if (this.stopped) return;
    this.timer = setInterval(() => void this.read(), this.o.everyMs ?? 5_000);
    // A node joining (a record never seen) or leaving (deleted) is read at once, not at the next tick.
    this.unwatch = this.o.state.watchNodes((change) => {
      const news = change.kind === "delete" ? this.known.delete(change.id) : !this.known.has(change.id);
      if (change.kind === "put") this.known.add(change.id);
      if (news) this.readSoon();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.unwatch?.();
    this.timer = this.soon = this.unwatch = undefined;
  }

  private readSoon(): void {
    if (this.soon || this.stopped) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.read();
    }, REREAD_AFTER_CHANGE_MS);
  }

  private read(): Promise<void> {
    // One read at a time; one asked for meanwhile waits for it (the watch's next change asks again).
    this.reading ??= this.look().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async look(): Promise<void> {
    const { region } = this.o;
    try {
      const nodes = await this.o.state.listNodes();
      const now = (this.o.now ?? Date.now)();
      for (const n of nodes) this.known.add(n.id);
      const choice = new FetcherChoice(liveFetchers(nodes, region, now, this.o.staleMs()));
      this.renders = nodes.some(
        (n) =>
          n.role === "fetcher" &&
          n.region === region &&
          n.status !== "draining" &&
          (n.gauges?.renderPool ?? 0) > 0 &&
          now - n.heartbeatAt <= (this.o.renderStaleMs ?? 30_000),
      );
      if (choice.sameAs(this.choice)) return;
      this.choice = choice;
      this.o.onChange?.(choice.nodes);
    } catch (error) {
      this.o.onError?.(error);
    }
  }
}
