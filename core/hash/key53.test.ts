import { expect, test } from "bun:test";
import { key53 } from "./key53.ts";

test("key53 is a stable whole number below 2^53, the same for the same string", () => {
  for (const s of ["", "a.test", "www.example.com", "xn--bcher-kva.example", "http://site1.test/"]) {
    const k = key53(s);
    expect(Number.isSafeInteger(k)).toBe(true);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(key53(`${s}`)).toBe(k);
  }
});

test("a million distinct host names get a million distinct keys", () => {
  const keys = new Set<number>();
  for (let i = 0; i < 1_000_000; i++) keys.add(key53(`site${i}.test`));
  expect(keys.size).toBe(1_000_000);
});
