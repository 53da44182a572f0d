import { describe, expect, test } from "bun:test";
import { metricName, prometheusText } from "./prometheus.ts";

describe("prometheus text", () => {
  test("prometheus - dotted counter names become prefixed _total metrics", () => {
    expect(metricName("fetch.status.200", "counter")).toBe("crawler_fetch_status_200_total");
    expect(metricName("traps.rejected.too-deep", "counter")).toBe("crawler_traps_rejected_too_deep_total");
    expect(metricName("pages_total", "counter")).toBe("crawler_pages_total");
  });

  test("prometheus - camelCase gauges are split and get no suffix", () => {
    expect(metricName("inFlight", "gauge")).toBe("crawler_in_flight");
    expect(metricName("queued", "gauge")).toBe("crawler_queued");
  });

  test("prometheus - writes TYPE lines, sorted metrics and escaped labels on every sample", () => {
    const text = prometheusText({ "fetch.status.200": 5, "fetch.status.404": 1 }, { queued: 7 }, { node: 'c"1', region: "eu" });
    expect(text).toBe(
      [
        "# TYPE crawler_fetch_status_200_total counter",
        'crawler_fetch_status_200_total{node="c\\"1",region="eu"} 5',
        "# TYPE crawler_fetch_status_404_total counter",
        'crawler_fetch_status_404_total{node="c\\"1",region="eu"} 1',
        "# TYPE crawler_queued gauge",
        'crawler_queued{node="c\\"1",region="eu"} 7',
        "",
      ].join("\n"),
    );
  });

  test("prometheus - names that collide are summed", () => {
    expect(prometheusText({ "a.b": 1, "a-b": 2 })).toBe("# TYPE crawler_a_b_total counter\ncrawler_a_b_total 3\n");
  });

  test("prometheus - nothing to report is an empty document", () => {
    expect(prometheusText({})).toBe("");
  });

  test("prometheus - a histogram is written with cumulative buckets ending at +Inf, then its sum and count", () => {
    const h = { bounds: [0.5, 1], counts: [2, 1, 1], count: 4, sum: 3.25 };
    expect(prometheusText({}, {}, { node: "f1" }, { "fetch.duration-seconds": h })).toBe(
      [
        "# TYPE crawler_fetch_duration_seconds histogram",
        'crawler_fetch_duration_seconds_bucket{le="0.5",node="f1"} 2',
        'crawler_fetch_duration_seconds_bucket{le="1",node="f1"} 3',
        'crawler_fetch_duration_seconds_bucket{le="+Inf",node="f1"} 4',
        'crawler_fetch_duration_seconds_sum{node="f1"} 3.25',
        'crawler_fetch_duration_seconds_count{node="f1"} 4',
        "",
      ].join("\n"),
    );
  });
});
