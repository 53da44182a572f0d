/**
 * Filler prose for generated pages. A page is mostly paragraphs drawn from a pool that depends only on
 * the seed, so building a 25 KB page is a handful of string copies rather than thousands of random
 * draws; the draw order differs per page, which keeps exact and SimHash fingerprints of different pages
 * far apart. Words are made of syllables so the text looks like language to a tokenizer (spaces,
 * punctuation, varied word lengths) without shipping a dictionary.
 */
import { hash32, pick, rng, type Rng } from "./random.ts";

const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ra",
  "ten",
  "su",
  "vel",
  "dor",
  "an",
  "is",
  "po",
  "qua",
  "ren",
  "zi",
  "mo",
  "tal",
  "ber",
  "ni",
  "sa",
  "gro",
  "fe",
  "lin",
  "ur",
  "os",
  "pe",
  "tri",
  "ma",
  "den",
  "cul",
  "vo",
  "har",
  "ex",
];
const VOCABULARY_SIZE = 2048;
const POOL_SIZE = 512;

export interface ProsePool {
  /** Words used for titles and anchor texts. */
  readonly words: readonly string[];
  /** Ready-made `<p>…</p>` blocks, each roughly 300–700 bytes. */
  readonly paragraphs: readonly string[];
}

/** Builds the word list and paragraph pool for a seed. Pure; callers cache it per test web. */
export function prosePool(seed: number): ProsePool {
  const r = rng(hash32(seed, "vocabulary"));
  const words: string[] = [];
  for (let i = 0; i < VOCABULARY_SIZE; i++) {
    const n = 1 + pick(r, 4);
    let w = "";
    for (let s = 0; s < n; s++) w += SYLLABLES[pick(r, SYLLABLES.length)];
    words.push(w);
  }
  const paragraphs: string[] = [];
  for (let i = 0; i < POOL_SIZE; i++) paragraphs.push(`<p>${prose(r, words, 50 + pick(r, 50))}</p>\n`);
  return { words, paragraphs };
}

/** `count` words in sentences: capitalised, with commas and full stops. */
export function prose(r: Rng, words: readonly string[], count: number): string {
  const out: string[] = [];
  let sentence = 0;
  for (let i = 0; i < count; i++) {
    let w = words[pick(r, words.length)] ?? "lorem";
    if (sentence === 0) w = w.charAt(0).toUpperCase() + w.slice(1);
    sentence++;
    const end = i === count - 1 || (sentence > 5 && r() < 0.15);
    if (end) {
      w += ".";
      sentence = 0;
    } else if (r() < 0.08) {
      w += ",";
    }
    out.push(w);
  }
  return out.join(" ");
}

/** A few words for a title or an anchor. */
export function phrase(r: Rng, words: readonly string[], count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(words[pick(r, words.length)] ?? "lorem");
  return out.join(" ");
}
