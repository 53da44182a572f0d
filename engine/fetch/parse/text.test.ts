import { expect, test } from "bun:test";
import { simhash64 } from "../../../core/content/index.ts";
import { pick, rng } from "../../../tests/testweb/random.ts";
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
    expect(collapseWhitespace(collector.toString())).toBe(whole.replace(/\s+/g, " ").trim());
  }
});

test("text - the collected text, whitespace runs as found, has the SimHash of the collapsed text", () => {
  // Why the collector may skip collapsing: SimHash reads every whitespace run as one word break.
  const pieces = [...PIECES, "Σ", "ς", "İ", "Ab", "\u{1f600}", "x1"];
  const r = rng(11);
  const next = (n: number) => pick(r, n);
  for (let i = 0; i < 30_000; i++) {
    const collector = new TextCollector(100_000);
    const parts = Array.from({ length: 1 + next(30) }, () => pieces[next(pieces.length)]!);
    for (const p of parts) {
      if (next(4) === 0) collector.boundary();
      collector.add(p);
    }
    const text = collector.toString();
    expect(simhash64(text)).toBe(simhash64(collapseWhitespace(text)));
    expect(text).toBe(text.trim());
  }
});

test("text - the cap counts collapsed text, so whitespace cannot use it up, and cuts at the cap", () => {
  const collector = new TextCollector(100);
  for (let i = 0; i < 1_000; i++) collector.add(`w${i}      \n\t    `);
  const text = collector.toString();
  expect(text.length).toBe(100);
  expect(text.startsWith("w0 w1 w2")).toBe(true);
});
