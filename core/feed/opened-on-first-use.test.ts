import { expect, test } from "bun:test";
import type { PageFeed } from "../ports/index.ts";
import { openedOnFirstUse } from "./opened-on-first-use.ts";

/** A feed whose opening fails while `down` is true, counting the tries. */
function flaky() {
  const state = { down: true, opens: 0, published: 0 };
  const feed: PageFeed = {
    publish: async (items) => void (state.published += items.length),
    read: async () => ({ records: [], next: 7 }),
    close: async () => {},
  };
  const open = async () => {
    state.opens++;
    if (state.down) throw new Error("JetStream system temporarily unavailable");
    return feed;
  };
  return { state, open };
}

test("openedOnFirstUse - nothing is opened until used; a failed opening is thrown and tried again at the next use, then kept", async () => {
  const { state, open } = flaky();
  const feed = openedOnFirstUse(open);
  expect([state.opens, feed.isOpen]).toEqual([0, false]);
  await expect(feed.publish([])).rejects.toThrow("temporarily unavailable");
  await expect(feed.read("default", 0, 10)).rejects.toThrow("temporarily unavailable");
  await expect(feed.open()).rejects.toThrow("temporarily unavailable");
  expect([state.opens, feed.isOpen]).toEqual([3, false]);
  state.down = false;
  await feed.publish([{ id: "t1", record: {} as never }]);
  expect(await feed.read("default", 0, 10)).toEqual({ records: [], next: 7 });
  await feed.open();
  expect([state.opens, state.published, feed.isOpen]).toEqual([4, 1, true]);
});

test("openedOnFirstUse - uses at once share one opening", async () => {
  const { state, open } = flaky();
  state.down = false;
  const feed = openedOnFirstUse(open);
  await Promise.all([feed.publish([]), feed.read("default", 0, 1), feed.open()]);
  expect(state.opens).toBe(1);
});
