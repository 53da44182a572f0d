/**
 * The local file system as the processes with a state directory use it: `lockDir` keeps it to one process,
 * `checkDiskRoom` tells whether a full disk has room again.
 */
export { lockDir, type DirLock } from "./dir-lock.ts";
export { checkDiskRoom } from "./disk-room.ts";
export { FileReadError, fileSize, readLines, type FileLine, type ReadLinesOptions } from "./read-lines.ts";
