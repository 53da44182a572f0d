/**
 * The fleet model (issue 26, item 4): how many machines 100 million and 1 billion pages a day take.
 *
 *   bun run bench:fleet                 simulate 5,000,000 hosts (about 20 s and 2.5 GB of RSS here), save bench/fleet/simulation.json,
 *                                       print the sizing and write docs/sizing.md
 *   bun run bench:fleet --hosts 50000   a scaled-down simulation (seconds), printed only (add --save to keep it)
 *   bun run docs:sizing                 docs/sizing.md from the saved simulation and the measured figures (a second)
 *   bun run docs:sizing --check         fails when docs/sizing.md is not what the inputs give (CI, via docs:check)
 *
 * Knobs: --vcpu N (8), --memory-gib N (32), --cpu-utilization F (0.6), --memory-utilization F (0.7),
 * --partitions 64|256|1024 (64), --horizon-days N (30: days of growing state), --seconds S (120 virtual), --warmup S (60), --seed N (26), --alpha F (1.2),
 * --costs FILE (bench/fleet/measured-costs.json), --frontier FILE (bench/fleet/measured-frontier.json).
 * The document is the default machine and knobs; other values print a sizing without writing the document
 * unless --write is given.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ASSUMPTIONS, DEFAULT_MACHINE, type FrontierFigures, type MeasuredCosts } from "./model.ts";
import { runSimulation, type SimulationFile } from "./run-simulation.ts";
import { renderSizing } from "./sizing-doc.ts";
import { type FleetInputs, sizeAll } from "./sizing.ts";

const HERE = import.meta.dir;
const DOC = join(HERE, "..", "..", "docs", "sizing.md");
const SIMULATION = join(HERE, "simulation.json");
export const TARGETS = [100_000_000, 1_000_000_000];

interface Args {
  fromCache: boolean;
  check: boolean;
  write: boolean;
  save: boolean;
  hosts: number;
  seconds: number;
  warmup: number;
  seed: number;
  alpha?: number;
  vcpu: number;
  memoryGiB: number;
  cpuUtilization: number;
  memoryUtilization: number;
  partitions: number;
  horizonDays: number;
  costs: string;
  frontier: string;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    fromCache: false,
    check: false,
    write: false,
    save: false,
    hosts: 5_000_000,
    seconds: 120,
    warmup: 60,
    seed: 26,
    vcpu: DEFAULT_MACHINE.vcpu,
    memoryGiB: DEFAULT_MACHINE.memoryGiB,
    cpuUtilization: DEFAULT_MACHINE.cpuUtilization,
    memoryUtilization: DEFAULT_MACHINE.memoryUtilization,
    partitions: DEFAULT_ASSUMPTIONS.partitions,
    horizonDays: DEFAULT_ASSUMPTIONS.horizonDays,
    costs: join(HERE, "measured-costs.json"),
    frontier: join(HERE, "measured-frontier.json"),
  };
  let custom = false;
  let hostsGiven = false;
  const num = (i: number) => {
    const v = Number(argv[i + 1]);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${argv[i]} needs a positive number`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === "--from-cache") a.fromCache = true;
    else if (x === "--check") a.check = a.fromCache = true;
    else if (x === "--write") a.write = true;
    else if (x === "--save") a.save = true;
    else if (x === "--hosts") {
      a.hosts = num(i++);
      hostsGiven = true;
    } else if (x === "--seconds") a.seconds = num(i++);
    else if (x === "--warmup") a.warmup = num(i++);
    else if (x === "--seed") a.seed = num(i++);
    else if (x === "--alpha") a.alpha = num(i++);
    else if (x === "--vcpu") (a.vcpu = num(i++)), (custom = true);
    else if (x === "--memory-gib") (a.memoryGiB = num(i++)), (custom = true);
    else if (x === "--cpu-utilization") (a.cpuUtilization = num(i++)), (custom = true);
    else if (x === "--memory-utilization") (a.memoryUtilization = num(i++)), (custom = true);
    else if (x === "--partitions") (a.partitions = num(i++)), (custom = true);
    else if (x === "--horizon-days") (a.horizonDays = num(i++)), (custom = true);
    else if (x === "--costs") (a.costs = argv[++i]!), (custom = true);
    else if (x === "--frontier") (a.frontier = argv[++i]!), (custom = true);
    else if (x === "--help" || x === "-h") {
      process.stdout.write(
        `${readFileSync(import.meta.path, "utf8")
          .split("*/")[0]!
          .replace(/^\/\*\*\n/, "")
          .replace(/^ \* ?/gm, "")}\n`,
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${x} (bun run bench:fleet --help)`);
  }
  // The full default run writes the document and the cache; a scaled-down or customized one only prints.
  if (!a.fromCache && !hostsGiven && !custom && a.seconds === 120 && a.warmup === 60 && a.seed === 26 && a.alpha === undefined) {
    a.write = true;
    a.save = true;
  }
  if (a.fromCache && !custom && !a.check) a.write = true;
  if (a.check && custom) throw new Error("--check compares the document made with the default knobs");
  return a;
}

const args = parseArgs(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`${line}\n`);
const simulation: SimulationFile = args.fromCache
  ? (JSON.parse(readFileSync(SIMULATION, "utf8")) as SimulationFile)
  : runSimulation({
      hosts: args.hosts,
      targets: TARGETS,
      seconds: args.seconds,
      warmupSeconds: args.warmup,
      seed: args.seed,
      ...(args.alpha ? { alpha: args.alpha } : {}),
      command: ["bun run bench:fleet", ...process.argv.slice(2)].join(" ").trim(),
      log,
    });
if (!args.fromCache) log(`simulated in ${simulation.runSeconds.toFixed(1)} s`);
if (args.save) writeFileSync(SIMULATION, `${JSON.stringify(simulation, roundNumbers)}\n`);

const inputs: FleetInputs = {
  simulation: args.save ? (JSON.parse(readFileSync(SIMULATION, "utf8")) as SimulationFile) : simulation,
  costs: JSON.parse(readFileSync(args.costs, "utf8")) as MeasuredCosts,
  frontier: JSON.parse(readFileSync(args.frontier, "utf8")) as FrontierFigures,
  machine: {
    ...DEFAULT_MACHINE,
    vcpu: args.vcpu,
    memoryGiB: args.memoryGiB,
    cpuUtilization: args.cpuUtilization,
    memoryUtilization: args.memoryUtilization,
  },
  assumptions: { ...DEFAULT_ASSUMPTIONS, hosts: simulation.web.hosts, partitions: args.partitions, horizonDays: args.horizonDays },
};
const text = renderSizing(inputs, sizeAll(inputs));

if (args.check) {
  let current = "";
  try {
    current = readFileSync(DOC, "utf8");
  } catch {
    // missing: stale
  }
  if (current !== text) {
    console.error("docs/sizing.md is stale; run `bun run docs:sizing` (or `bun run bench:fleet` to simulate again)");
    process.exit(1);
  }
  console.log("docs/sizing.md is up to date");
} else if (args.write) {
  writeFileSync(DOC, text);
  log("wrote docs/sizing.md");
} else {
  process.stdout.write(text);
}

/** Keeps simulation.json small and stable: fractions to 4 significant decimals. */
function roundNumbers(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isInteger(value) ? Number(value.toFixed(4)) : value;
}
