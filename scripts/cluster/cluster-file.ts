/**
 * DIR/cluster.json: where a running local cluster is, for scripts and for an SRE looking for a process.
 * The coordinators' addresses (`adminUrl` and `grpcAddress`, each a comma-separated list when there are
 * standbys: give them as they are to crawlctl's CRAWLCTL_COORDINATOR or to an AdminClient, and the one
 * holding the lease answers), the admin token, the CA file clients need under `--secure` (`tlsCaFile`:
 * crawlctl's CRAWLCTL_TLS_CA_FILE, curl's --cacert), the regions, and every process with its role, id, region,
 * current pid (null while it waits to be started again), ports, data directory, restart count and log
 * file. `cluster up` writes it once every process is up and registered, rewrites it (atomically) whenever
 * a pid changes, and removes it when it stops.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.ts";
import type { PortMap } from "./layout.ts";
import type { Role } from "./plan.ts";
import type { ProcessStatus } from "./supervisor.ts";

export const CLUSTER_FILE = "cluster.json";

export interface ProcessEntry {
  role: Role;
  id: string;
  region: string;
  pid: number | null;
  ports: PortMap;
  dataDir: string | null;
  restarts: number;
  state: ProcessStatus["state"];
  log: string;
}

export interface ClusterFile {
  /** Admin API base URL of each coordinator, comma-separated. */
  adminUrl: string;
  /** gRPC host:port of each coordinator, comma-separated. */
  grpcAddress: string;
  token: string;
  /** PEM file of the cluster's CA, under --secure only: every server's certificate is signed by it. */
  tlsCaFile?: string;
  regions: string[];
  processes: ProcessEntry[];
  /** When this version of the file was written (ISO 8601). */
  updatedAt: string;
}

export interface Endpoints {
  adminUrls: readonly string[];
  grpcAddresses: readonly string[];
  token: string;
  regions: readonly string[];
  tlsCaFile?: string;
}

export function clusterFile(endpoints: Endpoints, statuses: readonly ProcessStatus[], logDir: string, now = new Date()): ClusterFile {
  return {
    adminUrl: endpoints.adminUrls.join(","),
    grpcAddress: endpoints.grpcAddresses.join(","),
    token: endpoints.token,
    ...(endpoints.tlsCaFile ? { tlsCaFile: endpoints.tlsCaFile } : {}),
    regions: [...endpoints.regions],
    processes: statuses.map((s) => ({
      role: s.plan.role,
      id: s.plan.id,
      region: s.plan.region,
      pid: s.pid,
      ports: s.plan.ports,
      dataDir: s.plan.dataDir,
      restarts: s.restarts,
      state: s.state,
      log: join(logDir, `${s.plan.id}.log`),
    })),
    updatedAt: now.toISOString(),
  };
}

/** Writes DIR/cluster.json with mode 0600 (it holds the token), atomically. */
export function writeClusterFile(dir: string, file: ClusterFile): void {
  writeFileAtomic(join(dir, CLUSTER_FILE), `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

export function removeClusterFile(dir: string): void {
  rmSync(join(dir, CLUSTER_FILE), { force: true });
}
