/** SQLite-backed implementations of the ports (Bun only): the embedded crawler's durable content index. */
export { SqliteContentIndex } from "./sqlite-content-index.ts";
