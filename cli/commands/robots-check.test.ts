import { describe, expect, test } from "bun:test";
import { type CliIo, UsageError } from "../io.ts";
import { robotsCheckCommand } from "./robots-check.ts";

const ROBOTS = "User-agent: *\nDisallow: /private/\n\nUser-agent: mybot\nDisallow: /mine/\n";

function fakeIo(files: Record<string, string> = { "robots.txt": ROBOTS }) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    readText: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`cannot read ${path}: ENOENT`);
      return text;
    },
  };
  return { io, out, err };
}

describe("crawlctl robots check", () => {
  test("prints one verdict line per URL, in order, in one write", async () => {
    const { io, out, err } = fakeIo();
    const code = await robotsCheckCommand(
      ["--robots-file", "robots.txt", "--agent", "OtherBot/1.0", "/private/a", "https://e.example/public", "/mine/x"],
      io,
    );
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toEqual(["disallowed /private/a\nallowed https://e.example/public\nallowed /mine/x\n"]);
  });

  test("applies the group of the agent's product token", async () => {
    const { io, out } = fakeIo();
    await robotsCheckCommand(["--agent", "MyBot/2.0 (+https://bot.example)", "--robots-file", "robots.txt", "/mine/x", "/private/a"], io);
    expect(out.join("")).toBe("disallowed /mine/x\nallowed /private/a\n");
  });

  test("accepts --flag=value and URLs after --", async () => {
    const { io, out } = fakeIo();
    await robotsCheckCommand(["--robots-file=robots.txt", "--agent=bot", "--", "-odd", "/private/"], io);
    expect(out.join("")).toBe("allowed -odd\ndisallowed /private/\n");
  });

  test("reports an unreadable file on stderr and returns 1", async () => {
    const { io, out, err } = fakeIo();
    const code = await robotsCheckCommand(["--robots-file", "missing.txt", "--agent", "bot", "/"], io);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err.join("")).toContain("cannot read missing.txt");
  });

  const bad: [string[], RegExp, string][] = [
    [["--agent", "bot", "/"], /missing --robots-file/, "a missing robots file"],
    [["--robots-file", "robots.txt", "/"], /missing --agent/, "a missing agent"],
    [["--robots-file", "robots.txt", "--agent", "bot"], /no URL/, "no URL"],
    [["--robots-file", "robots.txt", "--agent", "bot", "--verbose", "/"], /unknown flag '--verbose'/, "an unknown flag"],
    [["--robots-file", "robots.txt", "--agent"], /--agent needs a value/, "a flag without its value"],
    [["--agent", "--robots-file", "robots.txt", "/"], /--agent needs a value/, "a flag followed by another flag"],
    [["--robots-file="], /--robots-file needs a value/, "an empty value"],
    [["--agent", "a", "--agent", "b", "--robots-file", "robots.txt", "/"], /given twice/, "a repeated flag"],
  ];
  for (const [argv, message, what] of bad) {
    test(`rejects ${what} with a usage error`, async () => {
      const { io } = fakeIo();
      const run = robotsCheckCommand(argv, io);
      await expect(run).rejects.toBeInstanceOf(UsageError);
      await expect(robotsCheckCommand(argv, io)).rejects.toThrow(message);
    });
  }
});
