/** Ports for storage that outlives a node: object storage for finished WARC files. */
export type { ObjectStore, StoredObject } from "./object-store.ts";
