/**
 * JobBudget (core/ports/job-budget.ts) over the cluster-state KV bucket: a job's pool under
 * `budgets.<job>` (`{maxPages, left}`) and each holder's custody under `budgets.<job>.<holder>`
 * (`{units}`), JSON, every write a compare-and-set on the key's revision, retried when another write got
 * there first. A holder writes only its own custody key, so holders contend only on the pool, and only when
 * they take or give (once per chunk, not per task).
 *
 * Order of a take: the pool first, then the custody; a process killed between the two loses the chunk
 * (the job may end that much short), it never grants it twice. A give and a reclaim go the other way
 * (custody first, then the pool), for the same reason.
 *
 * Cost: one key per job with a budget, one per (job, holder) holding units, a few dozen bytes each; a take
 * is 2 reads and 2 writes, a settle 1 read and 1 write. Listing holders reads the bucket stream's subject
 * list (no consumer). On a bucket with 3 replicas, nats-server before 2.9.21 may accept two writes naming
 * the same revision when sent at once (kv-cluster-state.ts says more): two takes racing for the pool could
 * then both win, so a replicated budget needs a server past that version.
 */
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV, type KvEntry } from "@nats-io/kv";
import { CLUSTER_BUCKET, keys } from "../../core/cluster/index.ts";
import { UnavailableError } from "../../core/errors/index.ts";
import { askedCustody } from "../../core/jobs/index.ts";
import type { JobBudget } from "../../core/ports/index.ts";
import { isWrongLastSequence } from "./errors.ts";

const PREFIX = keys.budgetPrefix.slice(0, -1);
/** Compare-and-set tries before a call gives up (another writer won each time). */
const CAS_TRIES = 50;

interface Pool {
  maxPages: number;
  left: number;
}

interface Custody {
  units: number;
}

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

export class NatsKvJobBudget implements JobBudget {
  private constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
  ) {}

  /** Opens the bucket (made by the cluster state, NatsKvClusterState.open; created here when missing). */
  static async open(nc: NatsConnection, opts: { bucket?: string } = {}): Promise<NatsKvJobBudget> {
    const bucket = opts.bucket ?? CLUSTER_BUCKET;
    const kv = await new Kvm(nc).create(bucket);
    return new NatsKvJobBudget(kv, await jetstreamManager(nc), bucket);
  }

  async take(job: number, maxPages: number, holder: string, chunk: (left: number) => number): Promise<{ held: number; left: number }> {
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const custody = await this.get<Custody>(custodyKey(job, holder));
      const pool = await this.get<Pool>(poolKey(job));
      const left = pool ? pool.value.left : maxPages;
      const held = custody?.value.units ?? 0;
      const units = Math.min(left, askedCustody(chunk, left) - held);
      if (units <= 0) return { held, left };
      if (!(await this.cas(poolKey(job), { maxPages: pool?.value.maxPages ?? maxPages, left: left - units }, pool?.revision ?? 0)))
        continue;
      // The pool paid; the custody is written next, or the units go back (never both kept, never both lost
      // but for a kill right here).
      if (await this.cas(custodyKey(job, holder), { units: held + units }, custody?.revision ?? 0))
        return { held: held + units, left: left - units };
      await this.addToPool(job, units);
    }
    throw new UnavailableError(`the page budget of job #${job} kept changing under a take; retry`);
  }

  async settle(job: number, holder: string, spent: number): Promise<number | undefined> {
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const custody = await this.get<Custody>(custodyKey(job, holder));
      if (!custody || custody.value.units < spent || custody.value.units === 0) return undefined;
      const units = custody.value.units - spent;
      if (await this.cas(custodyKey(job, holder), { units }, custody.revision)) return units;
    }
    throw new UnavailableError(`the page budget of job #${job} kept changing under a settle; retry`);
  }

  async give(job: number, holder: string, units: number): Promise<number> {
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const custody = await this.get<Custody>(custodyKey(job, holder));
      const given = Math.min(custody?.value.units ?? 0, Math.max(0, units));
      if (!custody || given === 0) return 0;
      if (!(await this.cas(custodyKey(job, holder), { units: custody.value.units - given }, custody.revision))) continue;
      await this.addToPool(job, given);
      return given;
    }
    throw new UnavailableError(`the page budget of job #${job} kept changing under a give; retry`);
  }

  async reclaim(holder: string): Promise<number> {
    let total = 0;
    for (const key of await this.keys(`${PREFIX}.*.${holder}`)) {
      const job = Number(key.split(".")[1]);
      const custody = await this.get<Custody>(key);
      if (!custody) continue;
      try {
        // Deleted at the revision read: a settle of the holder between the read and here wins, and the
        // reclaim of this key waits for the next round.
        await this.kv.delete(key, { previousSeq: custody.revision });
      } catch (err) {
        if (isWrongLastSequence(err)) continue;
        throw err;
      }
      if (custody.value.units > 0) await this.addToPool(job, custody.value.units);
      total += custody.value.units;
    }
    return total;
  }

  async holders(): Promise<string[]> {
    const out = new Set<string>();
    for (const key of await this.keys(`${PREFIX}.*.*`)) {
      const custody = await this.get<Custody>(key);
      if (custody && custody.value.units > 0) out.add(key.split(".")[2]!);
    }
    return [...out];
  }

  async read(job: number): Promise<{ maxPages: number; left: number; held: number } | undefined> {
    const pool = await this.get<Pool>(poolKey(job));
    if (!pool) return undefined;
    let held = 0;
    for (const key of await this.keys(`${PREFIX}.${job}.*`)) held += (await this.get<Custody>(key))?.value.units ?? 0;
    return { maxPages: pool.value.maxPages, left: pool.value.left, held };
  }

  private async addToPool(job: number, units: number): Promise<void> {
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const pool = await this.get<Pool>(poolKey(job));
      if (!pool) return; // never made: nothing was taken from it
      if (await this.cas(poolKey(job), { ...pool.value, left: pool.value.left + units }, pool.revision)) return;
    }
    throw new UnavailableError(`the page budget of job #${job} kept changing while units went back to it; retry`);
  }

  private async get<T>(key: string): Promise<{ value: T; revision: number } | undefined> {
    const e = await this.kv.get(key);
    return isLive(e) ? { value: e.json<T>(), revision: e.revision } : undefined;
  }

  /** Writes `value` if the key is still at `revision` (0: absent or deleted); false when another write came first. */
  private async cas(key: string, value: unknown, revision: number): Promise<boolean> {
    try {
      if (revision === 0) await this.kv.create(key, json(value));
      else await this.kv.update(key, json(value), revision);
      return true;
    } catch (err) {
      if (isWrongLastSequence(err) || isKeyExists(err)) return false;
      throw err;
    }
  }

  /** Keys matching `pattern` (KV wildcards), from the bucket stream's subject list. */
  private async keys(pattern: string): Promise<string[]> {
    const prefix = `$KV.${this.bucket}.`;
    const info = await this.jsm.streams.info(`KV_${this.bucket}`, { subjects_filter: `${prefix}${pattern}` });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }
}

function poolKey(job: number): string {
  return `${PREFIX}.${job}`;
}

function custodyKey(job: number, holder: string): string {
  return `${PREFIX}.${job}.${holder}`;
}

function isLive(e: KvEntry | null): e is KvEntry {
  return e !== null && e.operation === "PUT";
}

/** kv.create on a key that has a value: nats.js reports it as its own error, not a JetStream code. */
function isKeyExists(err: unknown): boolean {
  return err instanceof Error && /wrong last sequence|key exists/i.test(err.message);
}
