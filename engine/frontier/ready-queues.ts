/**
 * The front queues: hosts whose gap has passed, grouped by the priority of their next URL. The dispatcher
 * serves level 1 before 2 before 3, so when fetch capacity is short, home pages and changed pages go first.
 * Each level is a FIFO, so hosts of one level take turns. A host is in at most one level at a time.
 */
import type { Priority } from "../../core/model/index.ts";

export class ReadyQueues {
  private readonly levels: string[][] = [[], [], []];
  private readonly heads = [0, 0, 0];
  private readonly members = new Set<string>();

  get size(): number {
    return this.members.size;
  }

  has(host: string): boolean {
    return this.members.has(host);
  }

  push(host: string, priority: Priority): void {
    if (this.members.has(host)) return;
    this.members.add(host);
    this.levels[priority - 1]!.push(host);
  }

  /** The next host to serve, best level first; undefined when no host is ready. */
  shift(): string | undefined {
    for (let i = 0; i < 3; i++) {
      const level = this.levels[i]!;
      while (this.heads[i]! < level.length) {
        const host = level[this.heads[i]!++]!;
        if (this.heads[i]! > 1024 && this.heads[i]! * 2 > level.length) {
          level.splice(0, this.heads[i]!);
          this.heads[i] = 0;
        }
        if (this.members.delete(host)) return host;
      }
    }
    return undefined;
  }

  /** Takes a host out (paused, say); its stale entry in the level is skipped later. */
  remove(host: string): boolean {
    return this.members.delete(host);
  }
}
