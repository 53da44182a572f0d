/**
 * Tells pull subscriptions when their consumer has a new leader. A pull request lives on the consumer's
 * leader; when that leader is lost (its server of a region's 3-server cluster killed), the request dies
 * with it and the client hears nothing until its heartbeats are missed. JetStream announces every
 * consumer leader elected on `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.<stream>.<consumer>`; one
 * subscription per connection to those subjects lets each pull subscription send its pull again the
 * moment a leader exists, instead of seconds later.
 *
 * Best effort: an advisory missed (this client was reconnecting at that moment, or its NATS user may not
 * subscribe to advisories) only means the subscription finds out from its missed heartbeats.
 */
import type { NatsConnection, Subscription } from "@nats-io/nats-core";

const PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.";

export class LeaderAdvisories {
  private readonly watchers = new Map<string, Set<() => void>>();
  private sub: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly onError: (err: unknown, where: string) => void,
  ) {}

  /** Calls `f` whenever `stream`/`consumer` has a new leader; returns the unsubscribe. */
  watch(stream: string, consumer: string, f: () => void): () => void {
    this.start();
    const key = `${stream}.${consumer}`;
    const set = this.watchers.get(key) ?? new Set();
    set.add(f);
    this.watchers.set(key, set);
    return () => {
      set.delete(f);
      if (set.size === 0) this.watchers.delete(key);
    };
  }

  stop(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
    this.watchers.clear();
  }

  private start(): void {
    if (this.sub || this.nc.isClosed()) return;
    try {
      this.sub = this.nc.subscribe(`${PREFIX}>`, {
        callback: (err, msg) => {
          if (err) {
            this.onError(err, "consumer leader advisories (pulls lost with a leader are noticed by missed heartbeats instead)");
            return;
          }
          for (const f of [...(this.watchers.get(msg.subject.slice(PREFIX.length)) ?? [])]) f();
        },
      });
    } catch (err) {
      this.onError(err, "consumer leader advisories (pulls lost with a leader are noticed by missed heartbeats instead)");
    }
  }
}
