import { describe, expect, test } from "bun:test";
import { PatternMatcher } from "./pattern.ts";

/** Reference matcher by dynamic programming: slow, obviously right, used to check the fast one. */
function referenceMatch(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const p = anchored ? pattern.slice(0, -1) : pattern;
  // can[i][j]: the first i pattern chars can consume exactly the first j path chars.
  let prev = new Array<boolean>(path.length + 1).fill(false);
  prev[0] = true;
  for (let i = 1; i <= p.length; i++) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    const c = p[i - 1];
    for (let j = 0; j <= path.length; j++) {
      if (c === "*") next[j] = prev[j] || (j > 0 && next[j - 1] === true);
      else next[j] = j > 0 && prev[j - 1] === true && path[j - 1] === c;
    }
    prev = next;
  }
  return anchored ? prev[path.length] === true : prev.some(Boolean);
}

describe("robots pattern matcher", () => {
  test("matches a literal pattern as a prefix", () => {
    const m = new PatternMatcher("/fish");
    expect(m.matches("/fish")).toBe(true);
    expect(m.matches("/fish.html")).toBe(true);
    expect(m.matches("/Fish")).toBe(false);
    expect(m.matches("/fis")).toBe(false);
  });

  test("matches an anchored literal only in full", () => {
    const m = new PatternMatcher("/fish$");
    expect(m.matches("/fish")).toBe(true);
    expect(m.matches("/fish/")).toBe(false);
  });

  test("treats *, ** and *$ as matching everything", () => {
    for (const p of ["*", "**", "*$"]) expect(new PatternMatcher(p).matches("/any/thing?x")).toBe(true);
  });

  test("matches a wildcard pattern anchored at both ends", () => {
    const m = new PatternMatcher("/*.php$");
    expect(m.matches("/a/b.php")).toBe(true);
    expect(m.matches("/a/b.php?q")).toBe(false);
    expect(m.matches("/.php")).toBe(true);
  });

  test("does not let the anchored suffix overlap the prefix", () => {
    const m = new PatternMatcher("/ab*b$");
    expect(m.matches("/ab")).toBe(false);
    expect(m.matches("/abb")).toBe(true);
  });

  // A backtracking matcher tries about C(5000, 30) ways to place the wildcards here and never finishes;
  // the matcher's time is measured in bench/robots.bench.ts, not here.
  test("answers a pattern with many wildcards and a failing tail (no exponential backtracking)", () => {
    const m = new PatternMatcher("/" + "*a".repeat(30) + "*b$");
    const path = "/" + "a".repeat(5000);
    for (let i = 0; i < 100; i++) expect(m.matches(path)).toBe(false);
    expect(m.matches(`${path}b`)).toBe(true);
  });

  test("agrees with a reference matcher on random patterns and paths (property)", () => {
    let seed = 42;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    const pick = (chars: string, len: number) => {
      let s = "";
      for (let i = 0; i < len; i++) s += chars[rnd(chars.length)];
      return s;
    };
    for (let i = 0; i < 5000; i++) {
      const pattern = (rnd(4) === 0 ? "*" : "/") + pick("ab/**", rnd(7)) + (rnd(3) === 0 ? "$" : "");
      const path = "/" + pick("ab/", rnd(10));
      expect({ pattern, path, match: new PatternMatcher(pattern).matches(path) }).toEqual({
        pattern,
        path,
        match: referenceMatch(pattern, path),
      });
    }
  });
});
