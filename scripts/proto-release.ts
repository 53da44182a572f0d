/**
 * `bun run proto:release`: records the .proto files of this tree as the released wire contract
 * (proto/released/descriptors.binpb), which `bun run proto:check` then holds every later change to (see
 * scripts/proto-breaking.ts). Run it when cutting a release, and commit the snapshot with the release.
 */
import { join } from "node:path";
import { RELEASED_SNAPSHOT, writeReleasedSnapshot } from "./proto-breaking.ts";

const protoDir = join(import.meta.dir, "..", "proto");
writeReleasedSnapshot(protoDir);
console.log(`wrote proto/${RELEASED_SNAPSHOT}: later changes must stay compatible with it (bun run proto:check)`);
