/** The local file system as the processes with a state directory use it: `lockDir` keeps it to one process. */
export { lockDir, type DirLock } from "./dir-lock.ts";
