/** Counters and histograms shared by every component (namespaced names, one Map each). */
export { Counters } from "./counters.ts";
export { Histogram, Histograms, mergeHistograms, quantile, type HistogramSnapshot } from "./histogram.ts";
export { HISTOGRAM_BUCKETS, bucketsFor } from "./histogram-buckets.ts";
export { maxOf, minOf } from "./extremes.ts";
