/**
 * Follows a NATS connection's status for the bus: whether it is up now, a way to stop waiting on a publish
 * when the connection drops under it, and a callback when it comes back. nats.js discards what it buffered
 * for a dead connection when it dials again, and a request that was waiting for its reply then runs into
 * its own timeout seconds later; knowing the connection dropped lets the bus fail such a publish at once
 * and its caller publish it again as soon as the connection is back, instead of seconds after.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { BusUnavailableError } from "./errors.ts";

export class ConnectionWatch {
  private up = true;
  private readonly onDrop = new Set<() => void>();
  private readonly onBack = new Set<() => void>();
  private readonly status: AsyncIterable<unknown> & { stop?: () => void };

  constructor(nc: NatsConnection) {
    const status = nc.status() as AsyncIterable<unknown> & { stop?: () => void };
    this.status = status;
    void (async () => {
      for await (const s of status) {
        const type = (s as { type: string }).type;
        if (type === "disconnect" || type === "staleConnection") {
          if (!this.up) continue;
          this.up = false;
          for (const f of [...this.onDrop]) f();
        } else if (type === "reconnect") {
          this.up = true;
          for (const f of [...this.onBack]) f();
        }
      }
    })().catch(() => {});
  }

  get isUp(): boolean {
    return this.up;
  }

  /**
   * Resolves true once the connection is up: at once when it is, else when it is back; false if it is not
   * back within `timeoutMs`.
   */
  whenUp(timeoutMs: number): Promise<boolean> {
    if (this.up) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.onBack.delete(back);
        resolve(false);
      }, timeoutMs);
      const back = () => {
        clearTimeout(timer);
        this.onBack.delete(back);
        resolve(true);
      };
      this.onBack.add(back);
    });
  }

  /** Calls `f` each time the connection is back after a drop; returns the unsubscribe. */
  whenBack(f: () => void): () => void {
    this.onBack.add(f);
    return () => this.onBack.delete(f);
  }

  /**
   * Runs `start`, unless the connection is down now, and fails with a BusUnavailableError saying `what`
   * was not confirmed if the connection drops before its promise settles; that promise is left to settle
   * on its own (its outcome is then ignored).
   */
  run<T>(start: () => Promise<T>, what: string): Promise<T> {
    if (!this.up) return Promise.reject(new BusUnavailableError(`NATS is disconnected (reconnecting): ${what} was not sent`));
    const p = start();
    return new Promise<T>((resolve, reject) => {
      const dropped = () => {
        this.onDrop.delete(dropped);
        reject(new BusUnavailableError(`the NATS connection dropped before ${what} was confirmed (it may or may not be stored)`));
      };
      this.onDrop.add(dropped);
      p.then(
        (v) => {
          this.onDrop.delete(dropped);
          resolve(v);
        },
        (e: unknown) => {
          this.onDrop.delete(dropped);
          reject(e);
        },
      );
    });
  }

  stop(): void {
    this.status.stop?.();
    this.onDrop.clear();
    this.onBack.clear();
  }
}
