/**
 * A job's feeds as the job routes and gRPC read them (core/jobs job-request.ts): seeds and feeds together
 * count against the per-request limit, so a request cannot carry twice the limit by splitting it.
 */
import { describe, expect, test } from "bun:test";
import { jobCreateRequest, jobSeedsRequest } from "./index.ts";

const urls = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `https://example.com/${prefix}${i}`);

describe("a job's feeds in requests", () => {
  test("POST /v1/jobs/{id}/seeds: urls and feeds together at most the limit; either may be left out", () => {
    expect(jobSeedsRequest({ feeds: urls(2, "f") }, 10)).toEqual({ urls: [], feeds: urls(2, "f") });
    expect(jobSeedsRequest({ urls: urls(5, "u"), feeds: urls(5, "f") }, 10)).toEqual({ urls: urls(5, "u"), feeds: urls(5, "f") });
    expect(() => jobSeedsRequest({ urls: urls(6, "u"), feeds: urls(5, "f") }, 10)).toThrow(
      "at most 10 URLs per request (urls and feeds together), got 11",
    );
    expect(() => jobSeedsRequest({}, 10)).toThrow("urls: required (or feeds)");
  });

  test("POST /v1/jobs: feeds kept apart from seeds, together at most the limit", () => {
    expect(jobCreateRequest({ id: "news", feeds: urls(1, "f") }, 10)).toMatchObject({ seeds: [], feeds: urls(1, "f") });
    expect(jobCreateRequest({ id: "news" }, 10).feeds).toBeUndefined();
    expect(() => jobCreateRequest({ id: "news", seeds: urls(6, "u"), feeds: urls(5, "f") }, 10)).toThrow(
      "at most 10 URLs per request (seeds and feeds together), got 11",
    );
  });
});
