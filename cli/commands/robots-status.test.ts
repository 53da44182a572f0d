import { describe, expect, test } from "bun:test";
import { type CliIo, UsageError } from "../io.ts";
import { robotsStatusCommand } from "./robots-status.ts";

function fakeIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    readText: async (path) => {
      throw new Error(`cannot read ${path}: not used`);
    },
  };
  return { io, out, err };
}

describe("crawlctl robots status", () => {
  const good: [string, string][] = [
    ["200", "parse"],
    ["404", "allow-all"],
    ["403", "allow-all"],
    ["429", "allow-all"],
    ["503", "disallow-all"],
    ["unreachable", "disallow-all"],
    ["redirect-loop", "allow-all"],
    ["301,302,200", "parse"],
    ["301, 302, 404", "allow-all"],
    ["301,301,301,301,301,301,200", "allow-all"],
    ["301,unreachable", "disallow-all"],
    ["304", "parse"],
  ];
  for (const [status, verdict] of good) {
    test(`prints ${verdict} for ${status}`, async () => {
      const { io, out } = fakeIo();
      expect(await robotsStatusCommand([status], io)).toBe(0);
      expect(out).toEqual([`${verdict}\n`]);
    });
  }

  const bad: [string[], RegExp, string][] = [
    [[], /missing STATUS/, "no status"],
    [["301", "200"], /expected one STATUS/, "a chain split over arguments"],
    [["abc"], /not an HTTP status/, "a word"],
    [["99"], /not an HTTP status/, "a two-digit number"],
    [["600"], /not an HTTP status/, "a status past 599"],
    [["2000"], /not an HTTP status/, "a four-digit number"],
    [["301,,200"], /not an HTTP status/, "an empty step"],
    [["200,301"], /ends a chain/, "a final status followed by more"],
    [["unreachable,200"], /ends a chain/, "a network failure followed by more"],
  ];
  for (const [argv, message, what] of bad) {
    test(`rejects ${what} with a usage error`, async () => {
      const { io, out } = fakeIo();
      await expect(robotsStatusCommand(argv, io)).rejects.toBeInstanceOf(UsageError);
      await expect(robotsStatusCommand(argv, io)).rejects.toThrow(message);
      expect(out).toEqual([]);
    });
  }
});
