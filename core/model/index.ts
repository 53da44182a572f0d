/**
 * The data that flows through the crawl, as plain types: tasks, results and discovered URLs between the
 * frontier and the fetch path (crawl-messages.ts), one HTTP fetch's request and outcome
 * (fetch-outcome.ts), and the exchange a page store keeps (captured-exchange.ts).
 */
export type * from "./crawl-messages.ts";
export type * from "./fetch-outcome.ts";
export type * from "./captured-exchange.ts";
