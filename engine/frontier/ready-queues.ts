/**
 * The front queues: hosts whose gap has passed, grouped by the priority of their next URL. The dispatcher
 * serves level 1 before 2 before 3, so when fetch capacity is short, home pages and changed pages go first.
 * Each level is a FIFO, so hosts of one level take turns. A host is in at most one level at a time.
 *
 * Hosts whose first request must be their robots.txt wait in a lane of their own, which gets every
 * ROBOTS_TURN-th turn while hosts with a known robots.txt are ready too (and every turn when none is):
 * a seed list of half a million new hosts once took every slot for their robots.txt for 80 s, and no page
 * was fetched meanwhile from hosts already read; now pages come from the first seconds, and the robots.txt
 * phase still ends (it keeps half the turns).
 */
import type { Priority } from "../../core/model/index.ts";

/** One turn in ROBOTS_TURN goes to a host waiting for its robots.txt, when others are ready too. */
export const ROBOTS_TURN = 2;

export class ReadyQueues {
  /** Levels 1-3 by priority, then the lane of hosts that need their robots.txt first. */
  private readonly levels: string[][] = [[], [], [], []];
  private readonly heads = [0, 0, 0, 0];
  private readonly members = new Set<string>();
  private turn = 0;

  get size(): number {
    return this.members.size;
  }

  has(host: string): boolean {
    return this.members.has(host);
  }

  /** Files a ready host by the priority of its next URL, or in the robots.txt lane when that comes first. */
  push(host: string, priority: Priority, needsRobots = false): void {
    if (this.members.has(host)) return;
    this.members.add(host);
    this.levels[needsRobots ? 3 : priority - 1]!.push(host);
  }

  /** The next host to serve, best level first, the robots.txt lane on its turns; undefined when none is ready. */
  shift(): string | undefined {
    const robotsTurn = ++this.turn % ROBOTS_TURN === 0;
    if (robotsTurn) {
      const host = this.take(3);
      if (host !== undefined) return host;
    }
    for (let i = 0; i < 3; i++) {
      const host = this.take(i);
      if (host !== undefined) return host;
    }
    return robotsTurn ? undefined : this.take(3);
  }

  /** The first live host of level `i`, if any; compacts the level's array as its head moves on. */
  private take(i: number): string | undefined {
    const level = this.levels[i]!;
    while (this.heads[i]! < level.length) {
      const host = level[this.heads[i]!++]!;
      if (this.heads[i]! > 1024 && this.heads[i]! * 2 > level.length) {
        level.splice(0, this.heads[i]!);
        this.heads[i] = 0;
      }
      if (this.members.delete(host)) return host;
    }
    return undefined;
  }

  /** Takes a host out (paused, say); its stale entry in the level is skipped later. */
  remove(host: string): boolean {
    return this.members.delete(host);
  }
}
