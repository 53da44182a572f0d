import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileReadError, fileSize, readLines, type FileLine } from "./read-lines.ts";

const dir = mkdtempSync(join(tmpdir(), "read-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function all(path: string, opts?: Parameters<typeof readLines>[1]): Promise<FileLine[]> {
  const out: FileLine[] = [];
  for await (const line of readLines(path, opts)) out.push(line);
  return out;
}

test("lines come out numbered, CRLF and a last line without a newline included", async () => {
  const path = join(dir, "mixed.txt");
  writeFileSync(path, "a\r\nb\n\nc");
  const lines = await all(path);
  expect(lines.map((l) => [l.lineNo, l.text])).toEqual([
    [1, "a"],
    [2, "b"],
    [3, ""],
    [4, "c"],
  ]);
  expect(lines.at(-1)!.bytesRead).toBe(fileSize(path)!);
});

test("a character split across two reads decodes whole, and lines split across reads join", async () => {
  const path = join(dir, "split.txt");
  const text = "https://ex\u00e4mple.test/\u00fc\u00df/\nhttps://b.test/\n";
  writeFileSync(path, text);
  const lines = await all(path, { chunkBytes: 3 });
  expect(lines.map((l) => l.text)).toEqual(["https://ex\u00e4mple.test/\u00fc\u00df/", "https://b.test/"]);
});

test("a line over the cap is skipped and named, reading goes on, and memory never holds it", async () => {
  const path = join(dir, "long.txt");
  writeFileSync(path, `first\n${"x".repeat(5_000)}\nthird\n${"y".repeat(5_000)}`);
  const lines = await all(path, { maxLineChars: 1_000, chunkBytes: 256 });
  expect(lines.map((l) => [l.lineNo, l.tooLong, l.text])).toEqual([
    [1, false, "first"],
    [2, true, ""],
    [3, false, "third"],
    [4, true, ""],
  ]);
});

test("a million lines stream through in order", async () => {
  const path = join(dir, "million.txt");
  const parts: string[] = [];
  for (let i = 0; i < 1_000_000; i++) parts.push(`https://h${i}.test/`);
  writeFileSync(path, `${parts.join("\n")}\n`);
  let count = 0;
  let inOrder = true;
  for await (const line of readLines(path)) {
    count++;
    if (line.text !== `https://h${line.lineNo - 1}.test/`) inOrder = false;
  }
  expect(count).toBe(1_000_000);
  expect(inOrder).toBe(true);
});

test("a file that cannot be read is a FileReadError naming the path and the reason", async () => {
  const missing = join(dir, "nope.txt");
  const error = await all(missing).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FileReadError);
  expect((error as FileReadError).reason).toBe("ENOENT");
  expect((error as Error).message).toBe(`cannot read ${missing}: ENOENT`);
  const isDir = await all(dir).catch((e: unknown) => e);
  expect((isDir as FileReadError).reason).toBe("EISDIR");
  expect(fileSize(missing)).toBeUndefined();
});
