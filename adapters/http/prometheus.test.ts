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
});
