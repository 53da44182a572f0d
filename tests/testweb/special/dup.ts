/**
 * `dup.test`: duplicate content under different URLs. `/a`, `/b`, `/copy/a` and `/c?ref=1` are
 * byte-identical; `/near/1` and `/near/2` differ from them by one word each (near-duplicates for
 * SimHash); `/other` is unrelated text of the same length, the control. The text is long enough
 * (about 3 KB of prose) for SimHash to be meaningful.
 */
import { hash32, rng } from "../random.ts";
import { prose, prosePool } from "../text.ts";
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS } from "./respond.ts";
import { routedHost } from "./routes.ts";

export function dupHosts(seed: number): Record<string, HostBehaviour> {
  const { words } = prosePool(seed);
  const text = prose(rng(hash32(seed, "dup.test", "text")), words, 450);
  const other = prose(rng(hash32(seed, "dup.test", "other")), words, 450);
  const body = (t: string) => page("duplicate", `<p>${t}</p>\n${linkList(["/"])}`);
  // Replace one word in the middle: the smallest change a fingerprint can see.
  const swap = (replacement: string) => {
    const w = text.split(" ");
    w[225] = replacement;
    return w.join(" ");
  };
  const same = body(text);
  return {
    "dup.test": routedHost({
      description: "`/a`, `/b`, `/copy/a`, `/c?ref=1` byte-identical; `/near/1`, `/near/2` one word different; `/other` unrelated",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page("dup", linkList(["/a", "/b", "/copy/a", "/c?ref=1", "/near/1", "/near/2", "/other"])),
        "/a": same,
        "/b": same,
        "/copy/a": same,
        "/c?ref=1": same,
        "/near/1": body(swap("zebra")),
        "/near/2": body(swap("quokka")),
        "/other": body(other),
      },
      mustFetch: ["/", "/a", "/b", "/copy/a", "/c?ref=1", "/near/1", "/near/2", "/other"],
    }),
  };
}
