import { expect, test } from "bun:test";
import { collapseWhitespace, TextCollector } from "./text.ts";

/** Every whitespace class `\s` knows, plain spaces, and letters: what a page's text runs are made of. */
const PIECES = [" ", " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u2028", "a", "bc", "é"];

test("text - collapsing whitespace gives exactly what replacing every \\s+ run with one space gives", () => {
  let seed = 7;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 20_000; i++) {
    const parts = Array.from({ length: next(10) }, () => PIECES[next(PIECES.length)]!);
    const whole = parts.join("");
    expect(collapseWhitespace(whole)).toBe(whole.replace(/\s+/g, " ").trim());
    const collector = new TextCollector(1_000);
    for (const p of parts) collector.add(p);
    expect(collector.toString()).toBe(whole.replace(/\s+/g, " ").trim());
  }
});
