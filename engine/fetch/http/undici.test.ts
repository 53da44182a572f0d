import { expect, test } from "bun:test";
import { Agent, assertRealUndici } from "./undici.ts";

test("undici - the package imported by file is the real undici and passes the guard", () => {
  expect(() => assertRealUndici(Agent)).not.toThrow();
});

// The suite runs on Bun (`bun test`), where the bare specifier is Bun's stand-in.
test("undici - under Bun the bare 'undici' specifier is the stand-in, and the guard rejects it", async () => {
  const bare = (await import("undici")) as unknown as { Agent: new () => object };
  expect(() => assertRealUndici(bare.Agent)).toThrow(/undici\/index\.js/);
});
