/**
 * Whether the region has a fetch node that renders: a live fetcher whose record announces a render pool
 * (the `renderPool` gauge, fetch-node/node.ts). A task asking for rendering goes to the region's render
 * queue, which only such nodes pull; with none, such a task would wait there for nothing, so the frontier
 * asks for no rendering meanwhile (the page is parsed as received, counted `render.no-renderer`). Read
 * from the node records every `everyMs` (5 s): a new rendering node is used within that, one that died is
 * dropped once its heartbeat is older than `staleMs` (the tasks it held come back after the fetch ack wait).
 */
import type { ClusterState } from "../../core/ports/index.ts";

export class RenderersWatch {
  private present = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly o: {
      state: Pick<ClusterState, "listNodes">;
      region: string;
      /** A record whose heartbeat (wall clock) is older than this is not counted. */
      staleMs: number;
      everyMs?: number;
      onError?: (error: unknown) => void;
    },
  ) {}

  /** Whether a rendering fetch node was live at the last look. */
  get available(): boolean {
    return this.present;
  }

  async start(): Promise<void> {
    await this.look();
    this.timer = setInterval(() => void this.look(), this.o.everyMs ?? 5_000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async look(): Promise<void> {
    try {
      const nodes = await this.o.state.listNodes();
      const now = Date.now();
      this.present = nodes.some(
        (n) =>
          n.role === "fetcher" &&
          n.region === this.o.region &&
          n.status !== "draining" &&
          (n.gauges?.renderPool ?? 0) > 0 &&
          now - n.heartbeatAt <= this.o.staleMs,
      );
    } catch (error) {
      this.o.onError?.(error); // keep the last answer: a failed read says nothing about the fleet
    }
  }
}
