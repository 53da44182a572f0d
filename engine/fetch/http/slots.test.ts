import { expect, test } from "bun:test";
import { Slots, SlotsClosedError } from "./slots.ts";

test("slots - grants up to its size and queues the rest in order", async () => {
  const slots = new Slots(2);
  await slots.acquire();
  await slots.acquire();
  const order: number[] = [];
  const third = slots.acquire().then(() => order.push(3));
  const fourth = slots.acquire().then(() => order.push(4));
  slots.release();
  await third;
  slots.release();
  await fourth;
  expect(order).toEqual([3, 4]);
});

test("slots - lets an aborted waiter leave the queue", async () => {
  const slots = new Slots(1);
  await slots.acquire();
  const controller = new AbortController();
  const waiting = slots.acquire(controller.signal);
  controller.abort(new Error("gave up"));
  await expect(waiting).rejects.toThrow("gave up");
  slots.release();
  await slots.acquire(); // the slot went back to the pool, not to the departed waiter
});

test("slots - turns waiters away when closed", async () => {
  const slots = new Slots(1);
  await slots.acquire();
  const waiting = slots.acquire();
  slots.close();
  await expect(waiting).rejects.toBeInstanceOf(SlotsClosedError);
  await expect(slots.acquire()).rejects.toBeInstanceOf(SlotsClosedError);
});
