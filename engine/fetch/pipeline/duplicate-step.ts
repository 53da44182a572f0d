/**
 * The exact-duplicate step, for pages and media alike: the content fingerprint of a 2xx body, whether it
 * changed since the URL's last visit, and whether its bytes are already stored. The same bytes under
 * another URL (the content index knows who had them first), or under this URL unchanged since its last
 * visit, are kept as a revisit record of WARC 1.1's identical-payload-digest profile naming where the
 * payload is: the visit is recorded, the bytes are not stored twice. A duplicate of another URL is not
 * parsed either (its links are that URL's).
 */
import { exactFingerprint } from "../../../core/content/index.ts";
import type { FetchTask, ResponseResult, Revisit } from "../../../core/model/index.ts";
import type { FetchResponse } from "../http/index.ts";
import type { WorkerDeps } from "./types.ts";

export interface DuplicateVerdict {
  /** The payload is another URL's: store the revisit and stop. */
  ofAnother: boolean;
  /** Set when the payload is already stored (another URL's, or this URL's last visit). */
  revisit?: Revisit;
}

export async function duplicateStep(
  deps: WorkerDeps,
  task: FetchTask,
  response: FetchResponse,
  result: ResponseResult,
): Promise<DuplicateVerdict> {
  const fingerprint = exactFingerprint(response.body);
  result.fingerprint = fingerprint;
  const refetch = task.previousFingerprint !== undefined;
  result.changed = refetch && task.previousFingerprint !== fingerprint;
  const duplicateOf = await deps.content.claimExact(fingerprint, task.url);
  if (duplicateOf) {
    result.duplicateOf = duplicateOf;
    return { ofAnother: true, revisit: { profile: "identical-payload-digest", refersToUri: duplicateOf } };
  }
  if (refetch && !result.changed) {
    return { ofAnother: false, revisit: { profile: "identical-payload-digest", refersToUri: task.url } };
  }
  return { ofAnother: false };
}
