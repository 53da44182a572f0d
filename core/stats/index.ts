/** Counters shared by every component (namespaced names, one Map). */
export { Counters } from "./counters.ts";
