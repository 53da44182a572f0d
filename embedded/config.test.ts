import { expect, test } from "bun:test";
import { CrawlConfigError, crawlUsage, resolveCrawlConfig } from "./config.ts";

const creds = { AWS_ACCESS_KEY_ID: "AKIDTEST", AWS_SECRET_ACCESS_KEY: "very-secret" };

test("crawl config - WARC upload and rolling read the same flags and variables as the fetch node", () => {
  const args = resolveCrawlConfig(["https://example.com/", "--out", "o", "--warc-upload", "s3://crawl-out/run", "--warc-roll-age=10m"], {
    ...creds,
    CRAWL_WARC_ROLL_SIZE: "64MiB",
  });
  expect(args.warc).toMatchObject({
    rollBytes: 64 * 1024 * 1024,
    rollAgeMs: 600_000,
    upload: { location: { bucket: "crawl-out", prefix: "run/" }, region: "us-east-1" },
  });
  expect(() => resolveCrawlConfig(["--out", "o", "--warc-upload", "s3://crawl-out/run"], {})).toThrow(CrawlConfigError);
  expect(() => resolveCrawlConfig(["--out", "o", "--warc-upload", "s3://crawl-out/run"], {})).toThrow(/needs credentials/);
});

test("crawl config - --help lists the upload flags with their env vars", () => {
  for (const needle of [
    "--warc-upload",
    "CRAWL_WARC_UPLOAD",
    "--s3-endpoint",
    "AWS_ENDPOINT_URL_S3",
    "AWS_SECRET_ACCESS_KEY",
    "--warc-roll-size",
    "--warc-roll-age",
    "--warc-upload-drain",
  ]) {
    expect(crawlUsage()).toContain(needle);
  }
});

test("crawl config - --http takes a port (loopback only) or host:port, and is off by default", () => {
  expect(resolveCrawlConfig(["--out", "o", "u"], {}).http).toBeUndefined();
  expect(resolveCrawlConfig(["--out", "o", "--http", "8080"], {}).http).toEqual({ host: "127.0.0.1", port: 8080 });
  expect(resolveCrawlConfig(["--out", "o"], { CRAWL_HTTP: "0.0.0.0:9100" }).http).toEqual({ host: "0.0.0.0", port: 9100 });
  expect(resolveCrawlConfig(["--out", "o", "--http", "[::1]:0"], {}).http).toEqual({ host: "::1", port: 0 });
  for (const bad of ["99999", "nohost", "host:", ":80x"]) {
    expect(() => resolveCrawlConfig(["--out", "o", "--http", bad], {})).toThrow(/--http/);
  }
});

test("crawl config - --admin-token and --metrics-token are token lists, as on every cluster process", () => {
  const args = resolveCrawlConfig(["--out", "o", "--admin-token", "aaaaaaaaaaaaaaaa1,bbbbbbbbbbbbbbbb2"], {
    CRAWL_METRICS_TOKEN: "mmmmmmmmmmmmmmmm",
  });
  expect(args.adminTokens).toEqual(["aaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbb2"]);
  expect(args.metricsTokens).toEqual(["mmmmmmmmmmmmmmmm"]);
  expect(() => resolveCrawlConfig(["--out", "o", "--admin-token", "short"], {})).toThrow(/admin-token/);
});
