/**
 * The fleet model's arithmetic (issue 26, item 4): from measured costs per page (the crawl benchmark's
 * cluster run, bench/fleet/measured-costs.json), the frontier's measured bytes per host and per URL
 * (bench/fleet/measured-frontier.json, issue 25's bench:scale), a machine size and a few stated assumptions,
 * how many machines of each role each region needs for a number of pages a day, what they hold in memory
 * and on disk, what goes through Redis and NATS, and which part runs out first. Pure: no I/O, no clock;
 * the region shares, fetch times and partition imbalance come in from the simulation (simulate.ts,
 * spread.ts) as plain numbers or a function.
 *
 * How each role is counted (every figure per region, at the region's share of the pages):
 *
 *   fetch, frontier  cores = pages/s x steady CPU ms/page; machines = cores / (vCPU x cpuUtilization).
 *                    Processes per machine = vCPU x main-thread ms / CPU ms (a process whose JS thread runs
 *                    at the utilization uses CPU/main-thread times that in cores). Frontier nodes also need
 *                    memory (hosts x RSS per host), a partition each, and room for the busiest node: the
 *                    ring's max/mean load at that node count multiplies their CPU.
 *   redis-server     single-threaded: instances = pages/s x main-thread ms / (1000 x cpuUtilization); memory
 *                    = seen-set + exact fingerprints (both grow with new URLs) + near-duplicate buckets
 *                    (bounded) + fetch claims (TTL); machines = max(instances, memory / usable memory).
 *   nats-server      every replica stores every message: cores = pages/s x CPU ms x replicas;
 *                    servers = max(replicas, cores / usable cores).
 *   coordinator      two (the lease holder and a standby) in the control region; its CPU is ~0.
 */

export interface RoleFigures {
  role: string;
  processes: number;
  cpuMsPerPage: number;
  steadyCpuMsPerPage: number;
  mainThreadMsPerPage?: number;
  peakRssBytesMax: number;
  diskBytesPerPage: number;
}

/** The part of bench/fleet/measured-costs.json (`bun run bench -- --costs-out`) the model reads. */
export interface MeasuredCosts {
  measuredAt: string;
  command: string;
  box: { cores: number; cpu: string };
  scenario: { hosts: number; pageBytes: number; linksPerPage: number; seconds: number };
  cluster: {
    name: string;
    pagesPerSecond: number;
    violations: number;
    otherLoadCpuSeconds: number;
    roles: RoleFigures[];
    servers: {
      steady: {
        redisCommandsPerPage: number;
        redisAofBytesPerPage: number;
        natsPublishedBytesPerPage: number;
        natsDeliveredBytesPerPage: number;
        natsPublishedMsgsPerPage: number;
        streamMessagesPerPage: number;
      };
      natsDiskBytesPerPage: number;
      redisBytesPerPageByFamily: Record<string, number>;
      redisKeysByFamily: Record<string, number>;
      connectionsPerHost: number;
    };
  };
}

/** bench/fleet/measured-frontier.json: issue 25's figures of one frontier at 1M hosts. */
export interface FrontierFigures {
  measuredAt: string;
  command: string;
  source: string;
  rssBytesPerHost: number;
  jsHeapBytesPerHost: number;
  diskBytesPerQueuedUrl: number;
  diskBytesPerFetchedUrl: number;
  diskBytesPerHost: number;
  bloomBytesPerSeenUrl: number;
  dispatchTasksPerSecond: number;
}

export interface MachineSize {
  vcpu: number;
  memoryGiB: number;
  /** Share of the cores the model plans to use (headroom for bursts, GC, a node's loss). */
  cpuUtilization: number;
  memoryUtilization: number;
  /** A frontier node's data volume throughput, MB/s (the Terraform module's gp3 default: 250). */
  frontierDiskMBps: number;
}

export const DEFAULT_MACHINE: MachineSize = { vcpu: 8, memoryGiB: 32, cpuUtilization: 0.6, memoryUtilization: 0.7, frontierDiskMBps: 250 };

/** What the model assumes about the crawl (each one is printed with the result). */
export interface Assumptions {
  /** Hosts known to the fleet (frontier memory and disk). */
  hosts: number;
  /** Share of fetched pages that are URLs fetched for the first time (1: a first crawl, the worst case). */
  newUrlShare: number;
  /** New URLs a fetched page adds to the seen-set (links not seen before). */
  newUrlsSeenPerPage: number;
  /** Days of work queued ahead on the frontier (queued URLs = pages/day x this). */
  queueDaysAhead: number;
  /** Days over which growing state (seen-set, fingerprints, fetched-URL rows) is counted. */
  horizonDays: number;
  /** Copies of every stream (the fleet's JetStream clusters keep 3). */
  natsReplicas: number;
  /** The fetch claim's TTL (adapters/redis: 10 min). */
  fetchClaimTtlSeconds: number;
  /** Near-duplicate index bound (adapters/redis/redis-content-index.ts): 4 x 65,536 buckets x 1.125 x 256 records. */
  simhashMaxRecords: number;
  /** Coordinators (lease holder + standby), all in the control region. */
  coordinators: number;
  /** Fixed partition count per region (the Terraform example's fleet: 256; the cluster's default 64). */
  partitions: number;
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  hosts: 5_000_000,
  newUrlShare: 1,
  newUrlsSeenPerPage: 9,
  queueDaysAhead: 1,
  horizonDays: 30,
  natsReplicas: 3,
  fetchClaimTtlSeconds: 600,
  simhashMaxRecords: 4 * 65_536 * 1.125 * 256,
  coordinators: 2,
  partitions: 64,
};

/** One region as the simulation saw it. */
export interface RegionShare {
  region: string;
  /** Share of the fleet's pages crawled here. */
  pageShare: number;
  /** Share of the hosts that live here. */
  hostShare: number;
  /** Mean fetch length, s (in flight per page per second, Little's law). */
  meanFetchSeconds: number;
}

export interface RoleSizing {
  role: "fetch" | "frontier" | "redis-server" | "nats-server" | "coordinator";
  machines: number;
  processesPerMachine: number;
  /** What set the count: the cores, a single-threaded process, memory, a minimum, or the partitions. */
  bound: "cpu" | "single thread" | "memory" | "minimum" | "disk throughput";
  coresNeeded: number;
  memoryBytes: number;
}

export interface RegionSizing {
  region: string;
  pagesPerSecond: number;
  hosts: number;
  roles: RoleSizing[];
  /** Fetches in flight (open connections to hosts), from the mean fetch time. */
  connections: number;
  frontierProcesses: number;
  /** Busiest frontier node's load over the mean, at that node count. */
  frontierImbalance: number;
  redisMemoryBytes: { seen: number; fingerprints: number; nearDuplicates: number; claims: number; total: number };
  /** Days until one machine's usable memory is full with this region's Redis (growing seen-set and fingerprints). */
  redisDaysOnOneMachine: number;
  redisCommandsPerSecond: number;
  redisAofBytesPerDay: number;
  natsMessagesPerSecond: number;
  natsBytesPerSecond: number;
  natsDiskBytesPerDay: number;
  warcBytesPerDay: number;
  frontierDisk: { queued: number; fetchedUrls: number; hosts: number; total: number; writeBytesPerSecondPerMachine: number };
  frontierMemoryBytes: number;
}

export interface Saturation {
  part: string;
  /** Pages a day the whole fleet reaches when this part is at 100 % (the regions in their shares). */
  pagesPerDay: number;
  rests: string;
}

export interface Sizing {
  pagesPerDay: number;
  pagesPerSecond: number;
  machine: MachineSize;
  regions: RegionSizing[];
  totals: Record<RoleSizing["role"], number>;
  machinesTotal: number;
  saturation: Saturation[];
  /** The part that runs out first as pages a day grow (lowest pagesPerDay above). */
  first: Saturation;
}

const GiB = 2 ** 30;

export function roleFigures(costs: MeasuredCosts, role: string): RoleFigures {
  const r = costs.cluster.roles.find((x) => x.role === role);
  if (!r) throw new Error(`measured costs have no role ${role}`);
  return r;
}

/** Main-thread ms per page in the steady state: the window's main-thread share of CPU applied to the steady CPU. */
export function steadyMainMs(r: RoleFigures): number {
  const main = r.mainThreadMsPerPage ?? r.cpuMsPerPage;
  return r.cpuMsPerPage > 0 ? r.steadyCpuMsPerPage * Math.min(1, main / r.cpuMsPerPage) : 0;
}

export interface ModelInput {
  pagesPerDay: number;
  costs: MeasuredCosts;
  frontier: FrontierFigures;
  machine: MachineSize;
  assumptions: Assumptions;
  regions: readonly RegionShare[];
  /** The busiest frontier node's load over the mean when `nodes` serve a region (spread.ts); 1 = perfectly even. */
  imbalance(region: string, nodes: number): number;
}

/** Machines that a process count needs, `perMachine` to a machine. */
const machinesFor = (processes: number, perMachine: number) => Math.max(1, Math.ceil(processes / perMachine));

export function sizeFleet(input: ModelInput): Sizing {
  const { costs, frontier, machine: m, assumptions: a } = input;
  const pagesPerSecond = input.pagesPerDay / 86_400;
  const usableCores = m.vcpu * m.cpuUtilization;
  const usableMemory = m.memoryGiB * GiB * m.memoryUtilization;
  const fetch = roleFigures(costs, "fetch");
  const front = roleFigures(costs, "frontier");
  const redis = roleFigures(costs, "redis-server");
  const nats = roleFigures(costs, "nats-server");
  const servers = costs.cluster.servers;
  const family = (name: string) => servers.redisBytesPerPageByFamily[name] ?? 0;
  const perProcess = (r: RoleFigures) => {
    const main = steadyMainMs(r);
    return Math.max(1, Math.floor(main > 0 ? (m.vcpu * main) / r.steadyCpuMsPerPage : 1));
  };

  const regions = input.regions.map((share): RegionSizing => {
    const rate = pagesPerSecond * share.pageShare;
    const perDay = rate * 86_400;
    const hosts = a.hosts * share.hostShare;
    const roles: RoleSizing[] = [];

    // Fetch nodes: enough cores, and enough processes for their JS threads, as many to a machine as fit.
    const fetchCores = (rate * fetch.steadyCpuMsPerPage) / 1000;
    const fetchPer = Math.max(1, Math.min(perProcess(fetch), Math.floor(usableMemory / Math.max(1, fetch.peakRssBytesMax))));
    const fetchProcesses = Math.max(1, Math.ceil((rate * steadyMainMs(fetch)) / (1000 * m.cpuUtilization)));
    const fetchByCpu = Math.ceil(fetchCores / usableCores);
    const fetchMachines = Math.max(1, fetchByCpu, Math.ceil(fetchProcesses / fetchPer));
    roles.push({
      role: "fetch",
      machines: fetchMachines,
      processesPerMachine: Math.max(1, Math.ceil(fetchProcesses / fetchMachines)),
      bound: fetchMachines === 1 && fetchByCpu < 1 ? "minimum" : fetchByCpu >= fetchMachines ? "cpu" : "single thread",
      coresNeeded: fetchCores,
      memoryBytes: fetchProcesses * fetch.peakRssBytesMax,
    });

    // Frontier nodes: cores and JS threads for the busiest node (the ring's imbalance at that process count),
    // memory for the region's hosts, the data volume's write throughput; at most one process per partition.
    const frontPer = perProcess(front);
    const frontCoresMean = (rate * front.steadyCpuMsPerPage) / 1000;
    const frontThreadsMean = (rate * steadyMainMs(front)) / (1000 * m.cpuUtilization);
    const frontierMemory = hosts * frontier.rssBytesPerHost;
    const frontierWrite = rate * front.diskBytesPerPage; // bytes/s
    let processes = 1;
    let machines = 1;
    let imbalance = 1;
    let bound: RoleSizing["bound"] = "minimum";
    for (let i = 0; i < 50; i++) {
      imbalance = input.imbalance(share.region, processes);
      const byThreads = Math.min(a.partitions, Math.max(1, Math.ceil(frontThreadsMean * imbalance)));
      const byCpu = Math.ceil((frontCoresMean * imbalance) / usableCores);
      const byMemory = Math.ceil(frontierMemory / usableMemory);
      const byDisk = Math.ceil((frontierWrite * imbalance) / (m.frontierDiskMBps * 1e6 * m.cpuUtilization));
      const byProcesses = Math.ceil(byThreads / frontPer);
      const nextMachines = Math.max(1, byCpu, byMemory, byDisk, byProcesses);
      const nextProcesses = Math.min(a.partitions, Math.max(byThreads, nextMachines));
      bound =
        nextMachines === 1 && byCpu <= 1 && byMemory <= 1 && byDisk <= 1 && byProcesses <= 1
          ? "minimum"
          : nextMachines === byCpu
            ? "cpu"
            : nextMachines === byMemory
              ? "memory"
              : nextMachines === byDisk
                ? "disk throughput"
                : "single thread";
      if (nextMachines === machines && nextProcesses === processes) break;
      machines = nextMachines;
      processes = nextProcesses;
    }
    const frontierProcesses = processes;
    roles.push({
      role: "frontier",
      machines,
      processesPerMachine: Math.max(1, Math.ceil(frontierProcesses / machines)),
      bound,
      coresNeeded: frontCoresMean * imbalance,
      memoryBytes: frontierMemory,
    });

    // Redis: one single-threaded server per instance; memory for what grows over the horizon.
    const redisInstances = Math.ceil((rate * steadyMainMs(redis)) / (1000 * m.cpuUtilization));
    const newPages = perDay * a.newUrlShare * a.horizonDays;
    const seen = perDay * a.newUrlsSeenPerPage * a.horizonDays * frontier.bloomBytesPerSeenUrl;
    const fingerprints = newPages * family("fp");
    const simhashPerRecord = family("simhash") / 4;
    const nearDuplicates = Math.min(perDay * a.horizonDays * family("simhash"), a.simhashMaxRecords * simhashPerRecord);
    const claims = rate * a.fetchClaimTtlSeconds * family("crawler");
    const redisMemory = seen + fingerprints + nearDuplicates + claims;
    const redisByMemory = Math.ceil(redisMemory / usableMemory);
    roles.push({
      role: "redis-server",
      machines: Math.max(1, redisInstances, redisByMemory),
      processesPerMachine: 1,
      bound: redisInstances >= redisByMemory ? (redisInstances >= 1 ? "single thread" : "minimum") : "memory",
      coresNeeded: (rate * redis.steadyCpuMsPerPage) / 1000,
      memoryBytes: redisMemory,
    });

    // NATS: every replica does the measured single-copy work.
    const natsCores = (rate * nats.steadyCpuMsPerPage * a.natsReplicas) / 1000;
    const natsServers = Math.max(a.natsReplicas, Math.ceil(natsCores / usableCores));
    roles.push({
      role: "nats-server",
      machines: natsServers,
      processesPerMachine: 1,
      bound: natsServers > a.natsReplicas ? "cpu" : "minimum",
      coresNeeded: natsCores,
      memoryBytes: nats.peakRssBytesMax * natsServers,
    });

    const control = share === input.regions[0];
    roles.push({
      role: "coordinator",
      machines: control ? a.coordinators : 0,
      processesPerMachine: 1,
      bound: "minimum",
      coresNeeded: control ? (pagesPerSecond * roleFigures(costs, "coordinator").steadyCpuMsPerPage) / 1000 : 0,
      memoryBytes: control ? a.coordinators * roleFigures(costs, "coordinator").peakRssBytesMax : 0,
    });

    const queued = perDay * a.queueDaysAhead * frontier.diskBytesPerQueuedUrl;
    const fetchedUrls = newPages * frontier.diskBytesPerFetchedUrl;
    const hostBytes = hosts * frontier.diskBytesPerHost;
    return {
      region: share.region,
      pagesPerSecond: rate,
      hosts,
      roles,
      connections: rate * share.meanFetchSeconds,
      frontierProcesses,
      frontierImbalance: imbalance,
      redisMemoryBytes: { seen, fingerprints, nearDuplicates, claims, total: redisMemory },
      redisDaysOnOneMachine: Math.max(0, usableMemory - nearDuplicates - claims) / ((seen + fingerprints) / a.horizonDays),
      redisCommandsPerSecond: rate * servers.steady.redisCommandsPerPage,
      redisAofBytesPerDay: perDay * servers.steady.redisAofBytesPerPage,
      natsMessagesPerSecond: rate * servers.steady.natsPublishedMsgsPerPage,
      natsBytesPerSecond: rate * (servers.steady.natsPublishedBytesPerPage + servers.steady.natsDeliveredBytesPerPage),
      natsDiskBytesPerDay: perDay * servers.natsDiskBytesPerPage * a.natsReplicas,
      warcBytesPerDay: perDay * fetch.diskBytesPerPage,
      frontierDisk: {
        queued,
        fetchedUrls,
        hosts: hostBytes,
        total: queued + fetchedUrls + hostBytes,
        writeBytesPerSecondPerMachine: (frontierWrite * imbalance) / machines,
      },
      frontierMemoryBytes: frontierMemory,
    };
  });

  const totals = { fetch: 0, frontier: 0, "redis-server": 0, "nats-server": 0, coordinator: 0 } as Record<RoleSizing["role"], number>;
  for (const r of regions) for (const role of r.roles) totals[role.role] += role.machines;
  const saturation = saturationList(input);
  return {
    pagesPerDay: input.pagesPerDay,
    pagesPerSecond,
    machine: m,
    regions,
    totals,
    machinesTotal: Object.values(totals).reduce((x, y) => x + y, 0),
    saturation,
    first: saturation[0]!,
  };
}

/**
 * The parts that do not grow by adding machines of today's code, each with the pages a day at which it is
 * at 100 %: one redis-server per region (single-threaded; the roles take one Redis URL per region), one
 * frontier process per partition (its JS thread). Sorted, the first runs out first. (The web itself, under
 * politeness, is the simulation's finding, not a part of the fleet: docs/sizing.md states it apart.)
 */
export function saturationList(input: ModelInput): Saturation[] {
  const { costs, assumptions: a, frontier, machine: m } = input;
  const busiest = input.regions.reduce((x, y) => (y.pageShare > x.pageShare ? y : x));
  const family = (name: string) => costs.cluster.servers.redisBytesPerPageByFamily[name] ?? 0;
  // Redis memory that grows with every page (seen-set bits for its new links, its exact fingerprint), and
  // what does not (the near-duplicate index at its bound, claims at the TTL): how many pages a day fill one
  // machine in the horizon.
  const growthPerPage = a.newUrlsSeenPerPage * frontier.bloomBytesPerSeenUrl + a.newUrlShare * family("fp");
  const usableMemory = m.memoryGiB * GiB * m.memoryUtilization;
  const fixed = a.simhashMaxRecords * (family("simhash") / 4);
  const redisMain = steadyMainMs(roleFigures(costs, "redis-server"));
  const frontMain = steadyMainMs(roleFigures(costs, "frontier"));
  const list: Saturation[] = [
    {
      part: `one redis-server per region (single-threaded), in ${busiest.region}`,
      pagesPerDay: ((1000 / redisMain) * 86_400) / busiest.pageShare,
      rests: `redis-server main thread ${redisMain.toFixed(3)} ms/page (measured-costs.json); ${busiest.region} takes ${(100 * busiest.pageShare).toFixed(0)} % of the pages (simulation)`,
    },
    {
      part: `${a.partitions} partitions per region, one frontier process each (its JS thread), in ${busiest.region}`,
      pagesPerDay: ((a.partitions * (1000 / frontMain)) / input.imbalance(busiest.region, a.partitions)) * (86_400 / busiest.pageShare),
      rests: `frontier main thread ${frontMain.toFixed(3)} ms/page (measured-costs.json); busiest partition's load over the mean at ${a.partitions} nodes (spread check)`,
    },
    {
      part: `one redis-server's memory per region (${m.memoryGiB} GiB machine), holding ${a.horizonDays} days of new pages, in ${busiest.region}`,
      pagesPerDay: Math.max(0, usableMemory - fixed) / (growthPerPage * a.horizonDays * busiest.pageShare),
      rests: `${Math.round(growthPerPage)} B a new page (seen-set ${a.newUrlsSeenPerPage} x ${frontier.bloomBytesPerSeenUrl} B, exact fingerprint ${Math.round(family("fp"))} B: MEMORY USAGE, measured-costs.json), near-duplicate index at its bound`,
    },
  ];
  return list.sort((x, y) => x.pagesPerDay - y.pagesPerDay);
}
