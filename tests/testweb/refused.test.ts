import { expect, test } from "bun:test";
import { refusedPort } from "./refused.ts";

test("refusedPort gives a loopback port that refuses connections", async () => {
  const { port, url } = await refusedPort();
  expect(url).toBe(`http://127.0.0.1:${port}/`);
  const err = await fetch(url).then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );
  expect(err).toBeDefined();
  expect(String(err?.code ?? err?.message)).toMatch(/ConnectionRefused|ECONNREFUSED|refused/i);
});
