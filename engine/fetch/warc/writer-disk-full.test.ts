/**
 * The WARC writer on a full disk (a 2 MiB tmpfs mostly taken by another file, tests/support/small-disk.ts): a write that cannot be
 * completed is refused and cut off again, so the file never holds a torn record, the index lists exactly
 * the records in the file, and once space is back the writer goes on in the same file.
 */
import { afterEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mountSmallDisk, type SmallDisk } from "../../../tests/support/small-disk.ts";
import { INDEX_FILE, readWarc, WarcWriter, type CapturedExchange } from "./index.ts";

let disk: SmallDisk | undefined;
afterEach(() => {
  disk?.unmount();
  disk = undefined;
});

/** A page of incompressible bytes, so each record takes about its size on disk. */
function page(i: number): CapturedExchange {
  return {
    url: `http://site.test/page/${i}`,
    fetchedAt: Date.UTC(2026, 0, 1) + i,
    remoteAddress: "127.0.0.1",
    httpVersion: "1.1",
    requestHeaders: { "User-Agent": "crawler-test" },
    status: 200,
    responseHeaders: { "Content-Type": "application/octet-stream" },
    body: new Uint8Array(randomBytes(40_000)),
  };
}

async function responses(path: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const r of readWarc(path)) if (r.type === "response") urls.push(r.url ?? "");
  return urls;
}

test("warc writer - a full disk refuses the write and leaves no torn record; the writer goes on in the same file once there is room", async () => {
  disk = mountSmallDisk(2 * 1024 * 1024);
  disk.fill(400_000); // other files take the rest of the disk
  const writer = await WarcWriter.open({ dir: disk.dir, prefix: "full" });
  const written: string[] = [];
  let refused: unknown;
  for (let i = 0; i < 100 && refused === undefined; i++) {
    try {
      await writer.write(page(i));
      written.push(page(i).url);
    } catch (error) {
      refused = error;
    }
  }
  expect((refused as NodeJS.ErrnoException | undefined)?.code).toBe("ENOSPC");
  expect(written.length).toBeGreaterThan(3);
  const files = readdirSync(disk.dir).filter((f) => f.endsWith(".warc.gz"));
  expect(files.length).toBe(1);
  const file = join(disk.dir, files[0]!);
  // Every record in the file is whole (the reader would throw on a torn gzip member), and the index says so.
  expect(await responses(file)).toEqual(written);
  const indexed = readFileSync(join(disk.dir, INDEX_FILE), "utf8").trim().split("\n");
  expect(indexed.length).toBe(written.length);

  // Room again (the other files went): the same file takes the next record.
  disk.free();
  await writer.write(page(1000));
  await writer.close();
  expect(readdirSync(disk.dir).filter((f) => f.endsWith(".warc.gz"))).toEqual(files);
  expect(await responses(file)).toEqual([...written, page(1000).url]);
});

test("warc writer - with text kept, a full disk refuses the write in both files: every text record left names a response left", async () => {
  disk = mountSmallDisk(2 * 1024 * 1024);
  disk.fill(400_000);
  const writer = await WarcWriter.open({ dir: disk.dir, prefix: "full", wet: true });
  const written: string[] = [];
  let refused: unknown;
  for (let i = 0; i < 100 && refused === undefined; i++) {
    // A small page with much incompressible text: the disk fills while the text record is written, after
    // the page's records went in, so both files must be cut back.
    const text = { text: Buffer.from(randomBytes(40_000)).toString("base64") };
    try {
      await writer.write({ ...page(i), body: new Uint8Array(randomBytes(200)), text });
      written.push(page(i).url);
    } catch (error) {
      refused = error;
    }
  }
  expect((refused as NodeJS.ErrnoException | undefined)?.code).toBe("ENOSPC");
  disk.free();
  await writer.write({ ...page(1000), text: { text: "after" } });
  await writer.close();
  const warc = readdirSync(disk.dir).find((f) => f.endsWith(".warc.gz"))!;
  const wet = readdirSync(disk.dir).find((f) => f.endsWith(".warc.wet.gz"))!;
  const responseIds = new Map<string, string>();
  for await (const r of readWarc(join(disk.dir, warc)))
    if (r.type === "response") responseIds.set(r.url!, r.warcHeaders["WARC-Record-ID"]!);
  const texts: string[] = [];
  for await (const r of readWarc(join(disk.dir, wet))) {
    if (r.type !== "conversion") continue;
    expect(r.warcHeaders["WARC-Refers-To"]).toBe(responseIds.get(r.url!)!);
    texts.push(r.url!);
  }
  expect([...responseIds.keys()]).toEqual([...written, page(1000).url]);
  expect(texts).toEqual([...written, page(1000).url]);
});
