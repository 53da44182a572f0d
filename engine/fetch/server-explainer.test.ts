/**
 * `url explain`'s server part: the server a URL's host is capped under and that server's board figures,
 * each said apart (passes, of them waited, given back without a pass), as the board keeps them.
 */
import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { AddressBoard } from "../../core/politeness/index.ts";
import { ServerExplainer } from "./server-explainer.ts";

test("server explainer - through a proxy the server is the registrable domain; its passes, waits and given-back requests come apart", async () => {
  const board = new AddressBoard({ now: () => 1_000 });
  board.passed("domain:example.com", 0);
  board.passed("domain:example.com", 300);
  board.gaveUp("domain:example.com", 5_000);
  const explainer = new ServerExplainer({ policy: DEFAULT_POLICY, proxied: () => true, board });
  try {
    expect(await explainer.explain("http://blog.example.com/post")).toEqual({
      server: "domain:example.com",
      note: "through the proxy, which resolves names itself: capped by the host's registrable domain",
      board: { passes: 2, waits: 1, givenBack: 1, longestWaitMs: 5_000 },
    });
  } finally {
    explainer.close();
  }
});
