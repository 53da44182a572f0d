/**
 * Tells pull subscriptions when their consumer has a new leader, and publishes when their stream has one.
 * A pull request lives on the consumer's leader; when that leader is lost (its server of a region's
 * 3-server cluster killed), the request dies with it and the client hears nothing until its heartbeats are
 * missed. A publish sent while its stream had no leader is answered by nobody and would wait out its
 * publish timeout. JetStream announces every leader elected, on
 * `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.<stream>.<consumer>` and
 * `$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.<stream>`; one subscription per connection to each lets a pull
 * subscription pull again, and a publish be sent again, the moment a leader exists instead of seconds later.
 *
 * Best effort: an advisory missed (this client was reconnecting at that moment, or its NATS user may not
 * subscribe to advisories) only means the subscription finds out from its missed heartbeats.
 */
import type { NatsConnection, Subscription } from "@nats-io/nats-core";

const CONSUMER_PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.";
const STREAM_PREFIX = "$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.";
/** The key tail that stands for every consumer of a stream (a consumer name never contains it). */
const ANY = "*";

export class LeaderAdvisories {
  private readonly consumers: AdvisoryWatch;
  private readonly streams: AdvisoryWatch;

  constructor(nc: NatsConnection, onError: (err: unknown, where: string) => void) {
    this.consumers = new AdvisoryWatch(nc, CONSUMER_PREFIX, onError);
    this.streams = new AdvisoryWatch(nc, STREAM_PREFIX, onError);
  }

  /** Calls `f` whenever `stream`/`consumer` has a new leader; returns the unsubscribe. */
  watch(stream: string, consumer: string, f: () => void): () => void {
    return this.consumers.watch(`${stream}.${consumer}`, f);
  }

  /** Calls `f` whenever any consumer of `stream` has a new leader (every fetch node's inbox, say); returns the unsubscribe. */
  watchAnyConsumer(stream: string, f: () => void): () => void {
    return this.consumers.watch(`${stream}.${ANY}`, f);
  }

  /** Calls `f` whenever `stream` has a new leader; returns the unsubscribe. */
  watchStream(stream: string, f: () => void): () => void {
    return this.streams.watch(stream, f);
  }

  stop(): void {
    this.consumers.stop();
    this.streams.stop();
  }
}

/** One subscription to the advisories under `prefix`, calling the watchers of each advisory's tail. */
class AdvisoryWatch {
  private readonly watchers = new Map<string, Set<() => void>>();
  private sub: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly onError: (err: unknown, where: string) => void,
  ) {}

  watch(key: string, f: () => void): () => void {
    this.start();
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
      this.sub = this.nc.subscribe(`${this.prefix}>`, {
        callback: (err, msg) => {
          if (err) {
            this.onError(err, `${this.prefix}> (a lost leader is noticed by missed heartbeats and publish timeouts instead)`);
            return;
          }
          const key = msg.subject.slice(this.prefix.length);
          const dot = key.indexOf(".");
          const any = dot < 0 ? undefined : this.watchers.get(`${key.slice(0, dot)}.${ANY}`);
          for (const f of [...(this.watchers.get(key) ?? []), ...(any ?? [])]) f();
        },
      });
    } catch (err) {
      this.onError(err, `${this.prefix}> (a lost leader is noticed by missed heartbeats and publish timeouts instead)`);
    }
  }
}
