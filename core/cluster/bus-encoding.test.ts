import { expect, test } from "bun:test";
import { BUS_ENCODINGS, readBusEncoding } from "./bus-encoding.ts";

test("bus encoding - this release writes major 1 and reads it, with or without the header", () => {
  expect(BUS_ENCODINGS.newest).toBe(1);
  expect(readBusEncoding("1")).toEqual({ ok: true, major: 1 });
  // Written by the releases before versions existed.
  expect(readBusEncoding(undefined)).toEqual({ ok: true, major: 1 });
  expect(readBusEncoding("")).toEqual({ ok: true, major: 1 });
});

test("bus encoding - a future major is refused with a reason that says to upgrade", () => {
  expect(readBusEncoding("2")).toEqual({ ok: false, reason: "encoding version 2 is newer than this node reads (1): upgrade this node" });
});

test("bus encoding - a release that writes major 2 still reads the previous major, and refuses one it retired", () => {
  const readable = { oldest: 1, newest: 2 };
  expect(readBusEncoding("2", readable)).toEqual({ ok: true, major: 2 });
  expect(readBusEncoding("1", readable)).toEqual({ ok: true, major: 1 });
  expect(readBusEncoding(undefined, readable)).toEqual({ ok: true, major: 1 });
  expect(readBusEncoding("3", readable)).toMatchObject({
    ok: false,
    reason: expect.stringContaining("newer than this node reads (1 to 2)"),
  });
  expect(readBusEncoding("1", { oldest: 2, newest: 3 })).toMatchObject({
    ok: false,
    reason: expect.stringContaining("encoding version 1 is older than this node reads (2 to 3)"),
  });
});

test("bus encoding - a header that is not a version is refused, quoting it", () => {
  expect(readBusEncoding("v2")).toEqual({ ok: false, reason: 'Crawl-Encoding "v2" is not an encoding version' });
  expect(readBusEncoding("1.5")).toMatchObject({ ok: false });
  expect(readBusEncoding("-1")).toMatchObject({ ok: false });
});
