/**
 * What the PartitionReplica contract cannot see of the JetStream replica: how many copies JetStream keeps
 * of its stream and object store. They follow --nats-replicas like every stream and the cluster-state
 * bucket: set at creation, changed in place on an existing region, refused with what to do on a server
 * that runs alone. The contract itself is in tests/contract/partition-replica.contract.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { objectStores, streams } from "../../core/cluster/index.ts";
import { startNats, startNatsCluster, type NatsServer } from "../../tests/support/nats.ts";
import { connectNats, JetStreamPartitionReplica, type NatsConnection } from "./index.ts";

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNats({ jetstream: true });
  nc = await connectNats(nats.url, "partition-replica-test");
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

test("jetstream partition replica - more than one copy on a server that runs alone is refused with what to do", async () => {
  const err = await new JetStreamPartitionReplica(nc, { replicas: 3 }).ensureRegion("alone").catch((e: unknown) => e);
  expect((err as Error).message).toMatch(
    /^stream CRAWL_STATE_ALONE cannot keep 3 replicas: this nats-server runs JetStream alone, not in a cluster\. Give --nats-replicas 1/,
  );
});

test("jetstream partition replica - a region set up with one copy keeps three once a node asks for three, its log and snapshots both", async () => {
  const cluster = await startNatsCluster();
  const conn = await connectNats([...cluster.urls], "partition-replica-cluster");
  try {
    const jsm = await jetstreamManager(conn);
    const copies = async () => [
      (await jsm.streams.info(streams.state("eu"))).config.num_replicas,
      (await jsm.streams.info(`OBJ_${objectStores.state("eu")}`)).config.num_replicas,
    ];
    const one = new JetStreamPartitionReplica(conn, { replicas: 1 });
    await one.ensureRegion("eu");
    expect(await copies()).toEqual([1, 1]);
    await one.claim("eu", 0, { node: "n1", store: "s1" }, 0);
    const three = new JetStreamPartitionReplica(conn, { replicas: 3 });
    await three.ensureRegion("eu");
    expect(await copies()).toEqual([3, 3]);
    // The grown stream elects its leader again (publishes meanwhile have no responder); then it takes
    // writes, and what was written before is still there.
    const writer = { node: "n2", store: "s2" };
    let seq = 0;
    await waitFor(
      () =>
        three.claim("eu", 0, writer, 0).then(
          (s) => ((seq = s), true),
          () => false,
        ),
      "a claim after the change",
    );
    expect(await three.lastClaim("eu", 0)).toEqual({ kind: "claim", seq, writer, after: 0 });
    expect((await jsm.streams.info(streams.state("eu"))).state.messages).toBe(2);
  } finally {
    await conn.close();
    await cluster.stop();
  }
}, 120_000);

async function waitFor(cond: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
