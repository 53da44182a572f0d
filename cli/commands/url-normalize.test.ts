/**
 * Tests of `crawlctl url normalize` through a fake io: output lines, relative links with --base, batching,
 * and the usage errors.
 */
import { describe, expect, test } from "bun:test";
import { UsageError, type CliIo } from "../io.ts";
import { urlNormalizeCommand } from "./url-normalize.ts";

/** An io that records every write, so a test sees exactly what a user would. */
function fakeIo(): CliIo & { outs: string[]; errs: string[] } {
  const outs: string[] = [];
  const errs: string[] = [];
  return {
    outs,
    errs,
    out: (text) => void outs.push(text),
    err: (text) => void errs.push(text),
    readText: async (path) => {
      throw new Error(`no file ${path} in this test`);
    },
  };
}

async function run(argv: string[]) {
  const io = fakeIo();
  const code = await urlNormalizeCommand(argv, io);
  return { code, io };
}

describe("url normalize command", () => {
  test("prints the normalized form of each URL, one line each, in order", async () => {
    const { code, io } = await run(["HTTP://Example.COM:80/b?z=1&a=2#x", "https://example.com./?utm_source=x"]);
    expect(code).toBe(0);
    expect(io.outs.join("")).toBe("http://example.com/b?a=2&z=1\nhttps://example.com/\n");
  });

  test("prints REJECT with the reason for a URL it cannot normalize, and still exits 0", async () => {
    const { code, io } = await run(["ftp://example.com/", "http://example.com/", "not a url"]);
    expect(code).toBe(0);
    expect(io.outs.join("")).toBe("REJECT unsupported-scheme: ftp\nhttp://example.com/\nREJECT unparseable\n");
    expect(io.errs).toEqual([]);
  });

  test("resolves relative URLs against --base", async () => {
    const { io } = await run(["--base", "http://example.com/dir/page#top", "other", "../up?b&a", "#frag"]);
    expect(io.outs.join("")).toBe("http://example.com/dir/other\nhttp://example.com/up?a&b\nhttp://example.com/dir/page\n");
  });

  test("accepts --base=BASE and --base after the URLs", async () => {
    const first = await run(["--base=https://example.com/a/", "b"]);
    const last = await run(["b", "--base", "https://example.com/a/"]);
    expect(first.io.outs.join("")).toBe("https://example.com/a/b\n");
    expect(last.io.outs.join("")).toBe("https://example.com/a/b\n");
  });

  test("rejects a relative URL when no base is given", async () => {
    const { io } = await run(["/path"]);
    expect(io.outs.join("")).toBe("REJECT unparseable\n");
  });

  test("treats arguments after -- as URLs even when they start with a dash", async () => {
    const { io } = await run(["--base", "http://example.com/", "--", "-page", "--base"]);
    expect(io.outs.join("")).toBe("http://example.com/-page\nhttp://example.com/--base\n");
  });

  test("writes thousands of results in one call", async () => {
    const urls = Array.from({ length: 5000 }, (_, i) => `http://example.com/p${i}?utm_medium=x`);
    const { io } = await run(urls);
    expect(io.outs.length).toBe(1);
    const lines = io.outs[0]!.split("\n");
    expect(lines.length).toBe(5001);
    expect(lines[4999]).toBe("http://example.com/p4999");
    expect(lines[5000]).toBe("");
  });

  test("throws a usage error when no URL is given", async () => {
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(["--base", "http://example.com/"])).rejects.toThrow(/no URL given/);
  });

  test("throws a usage error for an unknown flag", async () => {
    await expect(run(["--frobnicate", "http://example.com/"])).rejects.toThrow(/unknown flag --frobnicate/);
    await expect(run(["-x", "http://example.com/"])).rejects.toThrow(UsageError);
  });

  test("throws a usage error when --base has no value or is given twice", async () => {
    await expect(run(["http://example.com/", "--base"])).rejects.toThrow(/--base needs a URL/);
    await expect(run(["--base=", "x"])).rejects.toThrow(/--base needs a URL/);
    await expect(run(["--base", "http://a.example/", "--base", "http://b.example/", "x"])).rejects.toThrow(/twice/);
  });

  test("throws a usage error when the base is not a usable http URL", async () => {
    await expect(run(["--base", "not a url", "x"])).rejects.toThrow(/not a usable URL \(unparseable\)/);
    await expect(run(["--base", "ftp://example.com/", "x"])).rejects.toThrow(UsageError);
  });

  test("writes nothing when the invocation is bad, even with good URLs in it", async () => {
    const io = fakeIo();
    await expect(urlNormalizeCommand(["http://example.com/a", "--nope", "http://example.com/b"], io)).rejects.toThrow(UsageError);
    expect(io.outs).toEqual([]);
  });
});
