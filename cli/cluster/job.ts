/**
 * `crawlctl job create|list|show|pause|resume|cancel|seed`: crawl jobs over the coordinator's gRPC API.
 * Settings are sent as given and checked by the coordinator (core/jobs), so crawlctl, the admin API and
 * gRPC refuse the same input with the same message. A job is printed as the admin API's JSON with --json.
 */
import { jobActionFrom, jobJsonOf } from "../../proto/codec/index.ts";
import type { CreateJobRequest, JobInfo } from "../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { type CliIo, UsageError } from "../io.ts";
import { type Env, withClient } from "./commands.ts";
import { table, toJson } from "./format.ts";
import { readFeedFile } from "./feed-file.ts";
import { parseClusterOptions } from "./options.ts";

const CREATE_FLAGS = [
  "--max-pages",
  "--max-duration",
  "--weight",
  "--scope",
  "--max-depth",
  "--allow-hosts",
  "--allow-urls",
  "--deny-urls",
  "--feeds",
];

export function jobCreateCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env, { valued: CREATE_FLAGS });
    const [id, ...seeds] = opts.rest;
    if (!id) throw new UsageError("give the job's id, then its seed URLs");
    const f = (flag: string) => opts.flags.get(flag);
    const feedsFile = f("--feeds");
    const list = (flag: string, by: RegExp) => {
      const v = f(flag);
      return v === undefined ? undefined : { values: v.split(by).filter((e) => e.trim() !== "") };
    };
    const req: CreateJobRequest = {
      id,
      seeds,
      feeds: feedsFile === undefined ? [] : await readFeedFile(feedsFile),
      maxPages: BigInt(whole(f("--max-pages"), "--max-pages") ?? 0),
      maxDuration: f("--max-duration") ?? "",
      weight: whole(f("--weight"), "--weight") ?? 0,
      settings: {
        scope: f("--scope"),
        maxDepth: whole(f("--max-depth"), "--max-depth"),
        allowHosts: list("--allow-hosts", /,/),
        allowUrls: list("--allow-urls", /\s+/),
        denyUrls: list("--deny-urls", /\s+/),
      },
    };
    return withClient(opts, io, async (c) => {
      const r = await c.createJob(req);
      if (opts.json) {
        io.out(toJson({ ...jobJsonOf(r.job!), seeds: { accepted: r.accepted, rejected: r.rejected } }));
        return 0;
      }
      io.out(
        `job ${id} created (number ${r.job!.number}), ${r.accepted} seed(s) accepted${r.rejected.length ? `, ${r.rejected.length} rejected` : ""}\n`,
      );
      for (const x of r.rejected) io.out(`  REJECT ${x.url}: ${x.reason}\n`);
      return 0;
    });
  };
}

export function jobListCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    return withClient(opts, io, async (c) => {
      const jobs = (await c.listJobs()).jobs.map(jobJsonOf);
      if (opts.json) io.out(toJson(jobs));
      else
        io.out(
          table(
            ["job", "state", "reason", "pages", "queued", "errors", "max pages", "weight"],
            jobs.map((j) => [
              j.id,
              j.state,
              j.reason ?? "",
              String(j.pages),
              String(j.queued),
              String(j.errors),
              String(j.maxPages || "-"),
              String(j.weight),
            ]),
          ),
        );
      return 0;
    });
  };
}

export function jobShowCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const id = single(opts.rest);
    return withClient(opts, io, async (c) => {
      printJob((await c.getJob(id)).job!, opts.json, io);
      return 0;
    });
  };
}

export function jobChangeCommand(env: Env, action: "pause" | "resume" | "cancel") {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env);
    const id = single(opts.rest);
    return withClient(opts, io, async (c) => {
      printJob((await c.changeJob(id, jobActionFrom(action))).job!, opts.json, io);
      return 0;
    });
  };
}

export function jobSeedCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env, { valued: ["--feeds"] });
    const [id, ...urls] = opts.rest;
    const feedsFile = opts.flags.get("--feeds");
    if (!id || (urls.length === 0 && feedsFile === undefined)) throw new UsageError("give the job's id, then seed URLs or --feeds FILE");
    const feeds = feedsFile === undefined ? [] : await readFeedFile(feedsFile);
    return withClient(opts, io, async (c) => {
      const r = await c.addJobSeeds(id, urls, undefined, feeds);
      if (opts.json) io.out(toJson(r));
      else {
        io.out(`${r.accepted} seed(s) accepted into job ${id}${r.rejected.length ? `, ${r.rejected.length} rejected` : ""}\n`);
        for (const x of r.rejected) io.out(`  REJECT ${x.url}: ${x.reason}\n`);
      }
      return r.rejected.length > 0 && r.accepted === 0 ? 1 : 0;
    });
  };
}

function printJob(info: JobInfo, json: boolean, io: CliIo): void {
  const j = jobJsonOf(info);
  if (json) {
    io.out(toJson(j));
    return;
  }
  io.out(
    Object.entries(j)
      .map(([k, v]) => `${k.padEnd(18)} ${Array.isArray(v) ? v.join(" ") : String(v ?? "-")}\n`)
      .join(""),
  );
}

function single(rest: string[]): string {
  if (rest.length !== 1) throw new UsageError("give exactly one job id");
  return rest[0]!;
}

/** A whole number flag; anything else is a usage error here (the range is the coordinator's to check). */
function whole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${flag}: give a whole number, got "${value.slice(0, 32)}"`);
  return Number(value);
}
