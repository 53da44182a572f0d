/**
 * FetchTask (core/model) <-> crawler.fetch.v1.FetchTask. The proto carries one field the model has not:
 * the region of the issuing frontier node, which the bus fills in from the subject it publishes to.
 * Optional strings travel as "" (proto3 has no presence) and come back as absent keys.
 */
import type { FetchTask, TaskKind } from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import { CodecError } from "./errors.ts";
import { fromInt64, optional, toInt64, toUint32, toUint64 } from "./numbers.ts";
import { sitemapRefFromProto, sitemapRefToProto } from "./sitemap.ts";

export function taskKindToProto(kind: TaskKind): pb.TaskKind {
  switch (kind) {
    case "page":
      return pb.TaskKind.TASK_KIND_PAGE;
    case "robots":
      return pb.TaskKind.TASK_KIND_ROBOTS;
    case "sitemap":
      return pb.TaskKind.TASK_KIND_SITEMAP;
    case "media":
      return pb.TaskKind.TASK_KIND_MEDIA;
    default:
      throw new CodecError(`unknown task kind ${JSON.stringify(kind)}`);
  }
}

export function taskKindFromProto(kind: pb.TaskKind): TaskKind {
  switch (kind) {
    case pb.TaskKind.TASK_KIND_PAGE:
      return "page";
    case pb.TaskKind.TASK_KIND_ROBOTS:
      return "robots";
    case pb.TaskKind.TASK_KIND_SITEMAP:
      return "sitemap";
    case pb.TaskKind.TASK_KIND_MEDIA:
      return "media";
    default:
      throw new CodecError(`task kind ${kind} is not a known kind`);
  }
}

export function fetchTaskToProto(task: FetchTask, region: string): pb.FetchTask {
  return {
    taskId: task.taskId,
    kind: taskKindToProto(task.kind),
    url: task.url,
    host: task.host,
    partition: toUint32("partition", task.partition),
    depth: toUint32("depth", task.depth),
    redirectHops: toUint32("redirectHops", task.redirectHops),
    etag: task.etag ?? "",
    lastModified: task.lastModified ?? "",
    previousFingerprint: task.previousFingerprint ?? "",
    hostGapMs: toUint32("hostGapMs", task.hostGapMs, true),
    issuedAtMs: toInt64("issuedAt", task.issuedAt),
    region,
    sitemap: task.sitemap ? sitemapRefToProto(task.sitemap) : undefined,
    fetchMedia: task.fetchMedia ?? false,
    ownerEpoch: toUint64("ownerEpoch", task.ownerEpoch ?? 0),
    job: toUint32("job", task.job ?? 0),
    render:
      task.render === "always"
        ? pb.RenderAsk.RENDER_ASK_ALWAYS
        : task.render === "auto"
          ? pb.RenderAsk.RENDER_ASK_AUTO
          : pb.RenderAsk.RENDER_ASK_UNSPECIFIED,
    robotsText: task.render ? (task.robotsText ?? "") : "",
  };
}

export function fetchTaskFromProto(msg: pb.FetchTask): FetchTask {
  if (msg.taskId === "") throw new CodecError("fetch task without a task id");
  const task: FetchTask = {
    taskId: msg.taskId,
    kind: taskKindFromProto(msg.kind),
    url: msg.url,
    host: msg.host,
    partition: msg.partition,
    depth: msg.depth,
    redirectHops: msg.redirectHops,
    hostGapMs: msg.hostGapMs,
    issuedAt: fromInt64("issuedAtMs", msg.issuedAtMs),
  };
  const etag = optional(msg.etag);
  if (etag !== undefined) task.etag = etag;
  const lastModified = optional(msg.lastModified);
  if (lastModified !== undefined) task.lastModified = lastModified;
  const previousFingerprint = optional(msg.previousFingerprint);
  if (previousFingerprint !== undefined) task.previousFingerprint = previousFingerprint;
  if (msg.sitemap) task.sitemap = sitemapRefFromProto(msg.sitemap);
  if (msg.fetchMedia) task.fetchMedia = true;
  const ownerEpoch = fromInt64("ownerEpoch", msg.ownerEpoch);
  if (ownerEpoch > 0) task.ownerEpoch = ownerEpoch;
  if (msg.job > 0) task.job = msg.job;
  switch (msg.render) {
    case pb.RenderAsk.RENDER_ASK_UNSPECIFIED:
      break;
    case pb.RenderAsk.RENDER_ASK_AUTO:
      task.render = "auto";
      break;
    case pb.RenderAsk.RENDER_ASK_ALWAYS:
      task.render = "always";
      break;
    default:
      throw new CodecError(`render ask ${msg.render} is not a known ask`);
  }
  const robotsText = optional(msg.robotsText);
  if (task.render && robotsText !== undefined) task.robotsText = robotsText;
  return task;
}

export function encodeFetchTask(task: FetchTask, region: string): Uint8Array {
  return pb.FetchTask.encode(fetchTaskToProto(task, region)).finish();
}

/** Decodes a task and the region that issued it; throws CodecError on malformed bytes. */
export function decodeFetchTaskWithRegion(bytes: Uint8Array): { task: FetchTask; region: string } {
  const msg = decodeOrThrow("FetchTask", () => pb.FetchTask.decode(bytes));
  return { task: fetchTaskFromProto(msg), region: msg.region };
}

export function decodeFetchTask(bytes: Uint8Array): FetchTask {
  return decodeFetchTaskWithRegion(bytes).task;
}

/** Runs a generated decoder, turning its errors (truncated input, bad wire type) into a CodecError. */
export function decodeOrThrow<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw new CodecError(`malformed ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
