import { expect, test } from "bun:test";
import { srcsetUrls } from "./srcset.ts";

test("srcset - takes each candidate's URL and drops its width or density descriptor", () => {
  expect(srcsetUrls("a.jpg 480w, b.jpg 800w,c.jpg 2x")).toEqual(["a.jpg", "b.jpg", "c.jpg"]);
});

test("srcset - keeps commas that are part of a URL", () => {
  expect(srcsetUrls("/img,w_480/a.jpg 480w, /img,w_960/a.jpg 960w")).toEqual(["/img,w_480/a.jpg", "/img,w_960/a.jpg"]);
});

test("srcset - a candidate without descriptors may end in a comma; a comma inside a run of non-space is the URL's", () => {
  expect(srcsetUrls("a.jpg, b.jpg 2x,c.jpg")).toEqual(["a.jpg", "b.jpg", "c.jpg"]);
  // As a browser reads it: "b.jpg,c.jpg" is one URL.
  expect(srcsetUrls("a.jpg, b.jpg,c.jpg")).toEqual(["a.jpg", "b.jpg,c.jpg"]);
});

test("srcset - whitespace of every kind separates, and empty candidates are skipped", () => {
  expect(srcsetUrls("\n  a.jpg\t1x ,, ,\r\nb.jpg  2x  ")).toEqual(["a.jpg", "b.jpg"]);
  expect(srcsetUrls("")).toEqual([]);
  expect(srcsetUrls(" , ,")).toEqual([]);
});

test("srcset - a comma inside parentheses of a descriptor does not end the candidate", () => {
  expect(srcsetUrls("a.jpg future(1, 2), b.jpg")).toEqual(["a.jpg", "b.jpg"]);
});
