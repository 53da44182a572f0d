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
