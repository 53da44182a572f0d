import { expect, test } from "bun:test";
import { checkToken } from "../../core/cluster/index.ts";
import { newNodeId } from "./index.ts";

test("node id - role, host name made a token, and random base-36 characters, as asked", () => {
  expect(newNodeId("coordinator", { host: "Build_Box.example.COM" })).toBe("coordinator-build-box-example-com");
  expect(newNodeId("frontier", { host: "Build_Box.example.COM", randomChars: 6, random: () => 0.5 })).toBe(
    "frontier-build-box-example-com-i00000",
  );
  expect(newNodeId("frontier", { host: "", randomChars: 6, random: () => 0 })).toBe("frontier-local-000000");
  expect(newNodeId("frontier", { host: "---", randomChars: 2, random: () => 0.999999 })).toBe("frontier-local-zz");
  expect(newNodeId("fetch", { randomChars: 8 })).toMatch(/^fetch-[a-z0-9]{8}$/);
});

test("node id - a long host name is cut so the id stays a valid token, and random ids differ", () => {
  const id = newNodeId("coordinator", { host: `${"a".repeat(39)}.${"b".repeat(80)}`, randomChars: 8 });
  expect(checkToken("node id", id)).toBe(id);
  expect(id).toMatch(/^coordinator-a{39}-[a-z0-9]{8}$/);
  const ids = new Set(Array.from({ length: 1000 }, () => newNodeId("fetch", { randomChars: 8 })));
  expect(ids.size).toBe(1000);
});
