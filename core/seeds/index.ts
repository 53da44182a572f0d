/** Seeds added by request (the admin API, `crawl --http`): which are taken and why the others are not. */
export { screenSeeds, type RejectedSeed } from "./screen-seeds.ts";
