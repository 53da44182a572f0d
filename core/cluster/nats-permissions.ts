/**
 * Which NATS subjects each role's user may publish to and subscribe on: the one table of the cluster's
 * NATS permissions. `cluster up --secure` renders it into its nats-server configuration
 * (`renderNatsAccounts`), and the Terraform fleet module keeps its own rendering of the same table
 * (deploy/terraform/modules/fleet/nats.tf), which a test compares with this one so the two never drift.
 *
 *   coordinator  seeds to crawl.urls.<any>.<p>; creates every region's streams and consumers; the
 *                cluster-state bucket, read and write (node records, lease), and the ring's bucket
 *   frontier     tasks to crawl.fetch.<R> (and .render, and fetch node inboxes crawl.fetch.<R>.to.<id>); URLs to crawl.urls.<any>.<p> (redirects, gRPC Enqueue); sets
 *                up its region's streams; pulls and acks urls-<p> and results-<p> of its region; writes
 *                node records, the ring (the end of a handoff) and the scope roots (scope.<host>: the hosts
 *                of the seeds it admits), the jobs' page budgets (budgets.<job>, budgets.<job>.<node>); its partitions' replicated state (stream CRAWL_STATE_<R>, subjects crawl.state.<R>.>,
 *                object store crawl-state-<R>: written, read from a sequence, purged below a snapshot);
 *                the feed of fetched pages (crawl.pages.<job>, stream CRAWL_PAGES; the coordinator reads it)
 *   fetch        links to crawl.urls.<any>.<p>; results to crawl.results.<R>.<p>; sets up its region's
 *                streams; pulls and acks its region's task consumers (`fetchers`, `renderers`, its own inbox
 *                `inbox-<id>` and those of gone fetch nodes it is heir of), lists them and deletes a gone
 *                node's empty inbox; writes node records; links for a region
 *                that does not answer to crawl.forward.<R>.<to>.<p>, and pulls and acks its region's
 *                `forwarders` to move them on
 *
 * Every role subscribes to _INBOX.> (JetStream API answers, pulled messages and publish acks all arrive on
 * the client's inbox) and to the leader-elected advisories of consumers and streams (a pull lost with its
 * consumer's leader, or a publish sent while its stream had none, is sent again the moment a new leader
 * exists: adapters/nats/leader-advisories.ts), nothing else. So a fetch node, the process that reads what
 * strangers publish, cannot hand out fetch tasks, forge results of another region, take the coordinator's
 * lease or rewrite the ring.
 * The subjects are those of names.ts and of what adapters/nats asks JetStream (nats.js v3, nats-server 2.9).
 */
import { FEED_STREAM } from "../feed/index.ts";
import { CLUSTER_BUCKET, consumers, keys, objectStores, RING_BUCKET, streams, subjects } from "./names.ts";

export const NATS_ROLES = ["coordinator", "frontier", "fetch"] as const;
export type NatsRole = (typeof NATS_ROLES)[number];

export interface SubjectPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
}

const KV_STREAM = `KV_${CLUSTER_BUCKET}`;
const KV_PREFIX = `$KV.${CLUSTER_BUCKET}`;
/** The ring's own bucket (names.ts): written by the coordinator and frontier nodes, read and watched by every role. */
const RING_STREAM = `KV_${RING_BUCKET}`;
const RING_KEY = `$KV.${RING_BUCKET}.${keys.ring}`;

/**
 * Create (idempotently), read and update a region's streams and their durable consumers (listed: the fetch
 * nodes' inboxes are updated in place too); no delete, no purge.
 */
function manageStreams(region: string): string[] {
  return [streams.urls(region), streams.fetch(region), streams.results(region), streams.forward(region)].flatMap((s) => [
    `$JS.API.STREAM.INFO.${s}`,
    `$JS.API.STREAM.CREATE.${s}`,
    `$JS.API.STREAM.UPDATE.${s}`,
    `$JS.API.CONSUMER.INFO.${s}.*`,
    `$JS.API.CONSUMER.LIST.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${s}.*`,
  ]);
}

/**
 * The cluster-state bucket and the ring's bucket: opened (created when missing, their copies brought to
 * --nats-replicas in place by whichever role opens them first after the setting changed), read, listed and
 * watched (ordered consumers).
 */
const USE_BUCKET = ["$JS.API.INFO", ...[KV_STREAM, RING_STREAM].flatMap(useBucketStream)];

function useBucketStream(s: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${s}`,
    `$JS.API.STREAM.CREATE.${s}`,
    `$JS.API.STREAM.UPDATE.${s}`,
    `$JS.API.STREAM.MSG.GET.${s}`,
    `$JS.API.DIRECT.GET.${s}`,
    `$JS.API.DIRECT.GET.${s}.>`,
    `$JS.API.CONSUMER.CREATE.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}.>`,
    `$JS.API.CONSUMER.INFO.${s}.*`,
    `$JS.API.CONSUMER.DELETE.${s}.*`,
    `$JS.FC.${s}.>`,
  ];
}

/**
 * A frontier node's replicated partition state: the journal and claims stream and the snapshots' object
 * store (written, read back from a sequence by a consumer it deletes after, purged below a snapshot), by
 * the names the replicated-state adapter uses (names.ts); an object store named B lives in stream OBJ_B
 * under subjects $O.B.>.
 */
function partitionState(region: string): string[] {
  const bucket = objectStores.state(region);
  return [subjects.stateWildcard(region), `$O.${bucket}.>`, ...[streams.state(region), `OBJ_${bucket}`].flatMap(readWriteStream)];
}

/** Create, read (by sequence, by subject, by consumer), purge; what the state stream and object store need. */
function readWriteStream(s: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${s}`,
    `$JS.API.STREAM.CREATE.${s}`,
    `$JS.API.STREAM.UPDATE.${s}`,
    `$JS.API.STREAM.PURGE.${s}`,
    `$JS.API.STREAM.MSG.GET.${s}`,
    `$JS.API.DIRECT.GET.${s}`,
    `$JS.API.DIRECT.GET.${s}.>`,
    `$JS.API.CONSUMER.CREATE.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}.>`,
    `$JS.API.CONSUMER.INFO.${s}.*`,
    `$JS.API.CONSUMER.DELETE.${s}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${s}.*`,
    `$JS.ACK.${s}.>`,
    `$JS.FC.${s}.>`,
  ];
}

/** Any region's partition subjects: links and seeds go to the owner of their host, wherever it is. */
const ANY_URLS = "crawl.urls.*.*";

/** The feed of fetched pages (core/feed): frontier nodes publish to it and open it; the coordinator also sets its retention and reads it. */
const FEED_PUBLISH = ["crawl.pages.*", `$JS.API.STREAM.INFO.${FEED_STREAM}`, `$JS.API.STREAM.CREATE.${FEED_STREAM}`];
const FEED_MANAGE = [
  ...FEED_PUBLISH,
  `$JS.API.STREAM.UPDATE.${FEED_STREAM}`,
  `$JS.API.STREAM.MSG.GET.${FEED_STREAM}`,
  `$JS.API.DIRECT.GET.${FEED_STREAM}`,
  `$JS.API.DIRECT.GET.${FEED_STREAM}.>`,
];

/**
 * What `role`'s user may do on the NATS servers of `region`, in a cluster of `regions` (the coordinator
 * manages every region's streams from its own region's servers).
 */
export function natsPermissions(role: NatsRole, region: string, regions: readonly string[]): SubjectPermissions {
  const subscribe = ["_INBOX.>", "$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.>", "$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.>"];
  switch (role) {
    case "coordinator":
      return {
        publish: [ANY_URLS, `${KV_PREFIX}.>`, RING_KEY, ...USE_BUCKET, ...regions.flatMap(manageStreams), ...FEED_MANAGE],
        subscribe,
      };
    case "frontier":
      return {
        publish: [
          subjects.fetch(region),
          subjects.render(region),
          subjects.inboxWildcard(region),
          ANY_URLS,
          `${KV_PREFIX}.nodes.*`,
          RING_KEY,
          `${KV_PREFIX}.${keys.scopeRootPrefix}>`,
          `${KV_PREFIX}.${keys.budgetPrefix}>`,
          ...USE_BUCKET,
          ...manageStreams(region),
          `$JS.API.CONSUMER.MSG.NEXT.${streams.urls(region)}.*`,
          `$JS.API.CONSUMER.MSG.NEXT.${streams.results(region)}.*`,
          `$JS.ACK.${streams.urls(region)}.>`,
          `$JS.ACK.${streams.results(region)}.>`,
          ...partitionState(region),
          ...FEED_PUBLISH,
        ],
        subscribe,
      };
    case "fetch":
      return {
        publish: [
          ANY_URLS,
          subjects.resultsWildcard(region),
          `crawl.forward.${region}.*.*`,
          `${KV_PREFIX}.nodes.*`,
          ...USE_BUCKET,
          ...manageStreams(region),
          // Every task consumer: the shared queue, the render queue, its own inbox and the inboxes it is heir
          // of; and deleting a gone node's empty inbox (inbox-heirs.ts).
          `$JS.API.CONSUMER.MSG.NEXT.${streams.fetch(region)}.*`,
          `$JS.API.CONSUMER.DELETE.${streams.fetch(region)}.*`,
          `$JS.ACK.${streams.fetch(region)}.>`,
          `$JS.API.CONSUMER.MSG.NEXT.${streams.forward(region)}.${consumers.forwarders}`,
          `$JS.ACK.${streams.forward(region)}.>`,
        ],
        subscribe,
      };
  }
}

/** A string as nats-server's configuration reads it: double-quoted, with `\` and `"` escaped. */
function quoted(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * The `accounts` block of a region's nats-server configuration: one account with JetStream, one user per
 * role with its password and the permissions above, and a system account (its user only for operators).
 */
export function renderNatsAccounts(opts: {
  region: string;
  regions: readonly string[];
  passwords: Readonly<Record<NatsRole | "system", string>>;
}): string {
  const users = NATS_ROLES.map((role) => {
    const p = natsPermissions(role, opts.region, opts.regions);
    return [
      "      {",
      `        user: ${quoted(role)}`,
      `        password: ${quoted(opts.passwords[role])}`,
      "        permissions: {",
      `          publish: { allow: [${p.publish.map(quoted).join(", ")}] }`,
      `          subscribe: { allow: [${p.subscribe.map(quoted).join(", ")}] }`,
      "        }",
      "      }",
    ].join("\n");
  });
  return [
    "accounts {",
    "  CRAWL {",
    "    jetstream: enabled",
    "    users: [",
    ...users,
    "    ]",
    "  }",
    "  SYS {",
    `    users: [ { user: "system", password: ${quoted(opts.passwords.system)} } ]`,
    "  }",
    "}",
    "system_account: SYS",
    "",
  ].join("\n");
}
