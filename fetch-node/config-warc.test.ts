import { expect, test } from "bun:test";
import { describeFetchNodeConfig, FetchNodeConfigError, fetchNodeUsage, loadFetchNodeConfig } from "./config.ts";

const fixedId = () => "fetch-test";
const creds = { AWS_ACCESS_KEY_ID: "AKIDTEST", AWS_SECRET_ACCESS_KEY: "very-secret" };

function problems(argv: string[], env: Record<string, string> = {}): readonly string[] {
  try {
    loadFetchNodeConfig(argv, env, fixedId);
  } catch (error) {
    if (error instanceof FetchNodeConfigError) return error.problems;
    throw error;
  }
  return [];
}

test("warc config - no upload by default; files roll at 1 GiB or 1 hour; text is kept as WET", () => {
  const c = loadFetchNodeConfig([], {}, fixedId);
  expect(c.warc).toEqual({ rollBytes: 1024 ** 3, rollAgeMs: 3_600_000, uploadDrainMs: 30_000, text: "wet", upload: undefined });
  expect(describeFetchNodeConfig(c).warcUpload).toBe("(off)");
});

test("warc config - upload target from flags, credentials, region and endpoint from the usual AWS variables", () => {
  const env = { ...creds, AWS_SESSION_TOKEN: "tok", AWS_REGION: "eu-west-1", AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9000/" };
  const c = loadFetchNodeConfig(
    ["--warc-upload", "s3://warc-bucket/fleet//us", "--warc-roll-size", "256MiB", "--warc-roll-age", "15m"],
    env,
    fixedId,
  );
  expect(c.warc).toEqual({
    rollBytes: 256 * 1024 * 1024,
    rollAgeMs: 900_000,
    uploadDrainMs: 30_000,
    text: "wet",
    upload: {
      location: { bucket: "warc-bucket", prefix: "fleet/us/" },
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "very-secret", sessionToken: "tok" },
    },
  });
  // A flag wins over its variable; the secret never shows in the start-up description.
  const flagged = loadFetchNodeConfig(
    ["--warc-upload", "s3://b-1/x", "--s3-region", "us-west-2", "--s3-access-key-id", "AKIDFLAG"],
    { ...env, CRAWL_WARC_UPLOAD: "s3://other/y" },
    fixedId,
  );
  expect(flagged.warc.upload).toMatchObject({
    location: { bucket: "b-1", prefix: "x/" },
    region: "us-west-2",
    credentials: { accessKeyId: "AKIDFLAG" },
  });
  const described = JSON.stringify(describeFetchNodeConfig(flagged));
  expect(described).toContain("s3://b-1/x/");
  expect(described).not.toContain("very-secret");
  expect(described).not.toContain("tok");
});

test("warc config - uploading without credentials, or to a bad target, is refused with every problem named", () => {
  expect(problems(["--warc-upload", "s3://warc-bucket/p"])).toEqual([
    "warcUpload: uploading to s3://warc-bucket/p/ needs credentials: set --s3-access-key-id / AWS_ACCESS_KEY_ID and --s3-secret-access-key / AWS_SECRET_ACCESS_KEY",
  ]);
  const bad = problems(
    ["--warc-upload", "http://warc-bucket/p", "--s3-endpoint", "ftp://x", "--warc-roll-size", "10", "--warc-roll-age", "0s"],
    creds,
  );
  expect(bad).toHaveLength(4);
  expect(bad.join("\n")).toMatch(/warcUpload: expected s3:\/\/bucket\/prefix/);
  expect(bad.join("\n")).toMatch(/s3Endpoint: must be an http or https URL/);
  expect(bad.join("\n")).toMatch(/warcRollSize: must be at least 1KiB/);
  expect(bad.join("\n")).toMatch(/warcRollAge: must be at least 1s/);
  // Credentials without a target are harmless: nothing is uploaded.
  expect(problems([], creds)).toEqual([]);
});

test("warc config - --help lists the upload flags with their env vars", () => {
  for (const usage of [fetchNodeUsage()]) {
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
      expect(usage).toContain(needle);
    }
  }
});

test("warc config - --text off writes no WET files, CRAWL_TEXT says the same, and anything else is refused", () => {
  expect(loadFetchNodeConfig(["--text", "off"], {}, fixedId).warc.text).toBe("off");
  expect(loadFetchNodeConfig([], { CRAWL_TEXT: "off" }, fixedId).warc.text).toBe("off");
  expect(problems(["--text", "html"]).join("\n")).toContain("text");
});
