/**
 * What a process closes when it stops, as named steps: each part registers its close as soon as it is
 * open (`add("nats", () => nc.close())`), and `run` closes them last-opened first, so nothing is closed
 * while a part opened after it still uses it. A failing step is logged with its name and the others still
 * run: one broken connection never keeps the store from being closed. The same list serves a start-up that
 * fails halfway (what was opened is closed) and a clean stop.
 */
import type { Log } from "../../core/ports/index.ts";
import { errorFields } from "../log/index.ts";

export class CloseSteps {
  private readonly steps: Array<{ readonly name: string; readonly close: () => unknown }> = [];

  /** Registers a step; it runs before every step added earlier. */
  add(name: string, close: () => unknown): void {
    this.steps.push({ name, close });
  }

  /** The names of the steps still to run, in the order they will run. */
  get pending(): string[] {
    return this.steps.map((s) => s.name).reverse();
  }

  /** Runs every registered step once, last added first; resolves with the names of those that failed. */
  async run(log: Log): Promise<string[]> {
    const failed: string[] = [];
    while (this.steps.length > 0) {
      const { name, close } = this.steps.pop()!;
      try {
        await close();
      } catch (error) {
        failed.push(name);
        log.warn(`closing ${name} failed; closing the rest`, errorFields(error, { step: name }));
      }
    }
    return failed;
  }
}
