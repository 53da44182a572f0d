/**
 * Prometheus text exposition (format 0.0.4) of a node's counters and gauges. The project's counter names
 * are namespaced with dots (`fetch.status.200`, `traps.rejected.too-deep`); each becomes one metric by a
 * fixed rule rather than a hand-kept mapping, so a new counter shows up without any change here:
 *
 *   - camelCase is split (`inFlight` → `in_flight`), everything is lower-cased, and every run of
 *     characters outside `[a-z0-9]` becomes one `_` (`fetch.status.200` → `fetch_status_200`);
 *   - the name gets the prefix `crawler_`, and counters the suffix `_total`:
 *     `fetch.status.200` → `crawler_fetch_status_200_total`, gauge `queued` → `crawler_queued`;
 *   - `labels` (e.g. `{node: "f1", region: "eu"}`) are put on every sample;
 *   - two names that map to the same metric (`a.b` and `a-b`) are summed into it;
 *   - histograms (core/stats) keep their name, which ends with its unit, and are written as Prometheus
 *     histograms: cumulative `_bucket{le="..."}` samples ending with `le="+Inf"`, then `_sum` and `_count`
 *     (`fetch.duration-seconds` → `crawler_fetch_duration_seconds_bucket`...).
 *
 * Flat names instead of labels (`code="200"`) keep the rule total and reversible enough to read; PromQL
 * can still aggregate them with `{__name__=~"crawler_fetch_status_5.._total"}`.
 */

import type { HistogramSnapshot } from "../../core/stats/index.ts";

export interface MetricsSnapshot {
  counters: Readonly<Record<string, number>>;
  gauges?: Readonly<Record<string, number>>;
  labels?: Readonly<Record<string, string>>;
  histograms?: Readonly<Record<string, HistogramSnapshot>>;
  /** Series of one metric told apart by labels of their own (a crawl job's `job`), besides `labels`. */
  series?: readonly LabelledSample[];
}

/** One sample of a labelled series; its caller bounds how many label values there are. */
export interface LabelledSample {
  name: string;
  kind: "counter" | "gauge";
  labels: Readonly<Record<string, string>>;
  value: number;
}

export const METRIC_PREFIX = "crawler";

/** The metric name for a counter or gauge name (see the module comment for the rule). */
export function metricName(name: string, kind: "counter" | "gauge" | "histogram", prefix = METRIC_PREFIX): string {
  const base = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const stem = base === "" ? prefix : `${prefix}_${base}`;
  return kind === "counter" && !stem.endsWith("_total") ? `${stem}_total` : stem;
}

/** Prometheus text for the counters, gauges and histograms, with `labels` on every sample; ends with a newline. */
export function prometheusText(
  counters: Readonly<Record<string, number>>,
  gauges: Readonly<Record<string, number>> = {},
  labels: Readonly<Record<string, string>> = {},
  histograms: Readonly<Record<string, HistogramSnapshot>> = {},
  series: readonly LabelledSample[] = [],
): string {
  const metrics = new Map<string, { type: "counter" | "gauge"; value: number }>();
  const add = (name: string, type: "counter" | "gauge", value: number) => {
    const key = metricName(name, type);
    const existing = metrics.get(key);
    if (existing && existing.type === type) existing.value += value;
    else if (!existing) metrics.set(key, { type, value });
  };
  for (const [name, value] of Object.entries(counters)) add(name, "counter", value);
  for (const [name, value] of Object.entries(gauges)) add(name, "gauge", value);
  const labelText = formatLabels(labels);
  const blocks = new Map<string, string[]>();
  for (const [name, m] of metrics) blocks.set(name, [`# TYPE ${name} ${m.type}`, `${name}${labelText} ${formatValue(m.value)}`]);
  for (const [name, h] of Object.entries(histograms)) {
    const key = metricName(name, "histogram");
    if (!blocks.has(key)) blocks.set(key, histogramLines(key, h, labels));
  }
  for (const sample of series) {
    const key = metricName(sample.name, sample.kind);
    let block = blocks.get(key);
    if (!block) blocks.set(key, (block = [`# TYPE ${key} ${sample.kind}`]));
    else if (!block[0]!.endsWith(` ${sample.kind}`)) continue; // a name taken by a metric of another type
    block.push(`${key}${formatLabels({ ...labels, ...sample.labels })} ${formatValue(sample.value)}`);
  }
  const lines = [...blocks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([, block]) => block);
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function histogramLines(name: string, h: HistogramSnapshot, labels: Readonly<Record<string, string>>): string[] {
  const lines = [`# TYPE ${name} histogram`];
  let cumulative = 0;
  h.bounds.forEach((bound, i) => {
    cumulative += h.counts[i] ?? 0;
    lines.push(`${name}_bucket${formatLabels({ ...labels, le: formatValue(bound) })} ${cumulative}`);
  });
  lines.push(`${name}_bucket${formatLabels({ ...labels, le: "+Inf" })} ${h.count}`);
  const labelText = formatLabels(labels);
  lines.push(`${name}_sum${labelText} ${formatValue(h.sum)}`, `${name}_count${labelText} ${h.count}`);
  return lines;
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  const parts = Object.entries(labels)
    .map(([k, v]) => [k.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^(?=[0-9])/, "_"), v] as const)
    .filter(([k]) => k !== "" && !k.startsWith("__"))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
