import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWarc, WarcWriter, type WarcRecordView } from "./index.ts";

const enc = new TextEncoder();
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warc-rendered-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function records(): Promise<WarcRecordView[]> {
  const [file] = (await readdir(dir)).filter((n) => n.endsWith(".warc.gz"));
  const out: WarcRecordView[] = [];
  for await (const r of readWarc(join(dir, file!))) out.push(r);
  return out;
}

describe("WARC records of a rendered page", () => {
  test("warc - the rendered DOM is a conversion record and the screenshot a resource record, both referring to the response, unindexed", async () => {
    const w = await WarcWriter.open({ dir });
    const placed = await w.write({
      url: "https://app.example/",
      fetchedAt: Date.UTC(2026, 0, 1),
      httpVersion: "1.1",
      requestHeaders: {},
      status: 200,
      responseHeaders: { "content-type": "text/html" },
      body: enc.encode('<div id="root"></div>'),
    });
    const dom = '<html><body><div id="root"><a href="/x">x</a></div></body></html>';
    await w.writeRendered({
      url: "https://app.example/",
      responseRecordId: placed.recordId,
      renderedAt: Date.UTC(2026, 0, 1, 0, 0, 2),
      dom,
      screenshot: PNG,
    });
    await w.close();

    const all = (await records()).filter((r) => r.type !== "warcinfo");
    expect(all.map((r) => r.type)).toEqual(["response", "request", "conversion", "resource"]);
    const [response, , conversion, resource] = all;
    expect(response!.warcHeaders["WARC-Record-ID"]).toBe(placed.recordId);
    for (const r of [conversion!, resource!]) {
      expect(r.warcHeaders["WARC-Refers-To"]).toBe(placed.recordId);
      expect(r.warcHeaders["WARC-Target-URI"]).toBe("https://app.example/");
    }
    expect(conversion!.warcHeaders["Content-Type"]).toBe("text/html; charset=utf-8");
    expect(new TextDecoder().decode(conversion!.payload)).toBe(dom);
    expect(conversion!.warcHeaders["WARC-Payload-Digest"]).toBe(`sha256:${createHash("sha256").update(dom).digest("hex")}`);
    expect(resource!.warcHeaders["Content-Type"]).toBe("image/png");
    expect([...resource!.payload]).toEqual([...PNG]);
    // Replay goes to the response: the index names it alone.
    const index = (await readFile(join(dir, "index.cdxj"), "utf8")).trim().split("\n");
    expect(index).toHaveLength(1);
  });
});
