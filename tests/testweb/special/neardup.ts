/**
 * `neardup.test`: a page and its near duplicate. `/orig` and `/near` show the same prose but for one
 * word (a SimHash of their text is within 3 bits; the test web's own test checks it) and link different
 * pages (`/o1`, `/o2` and `/n1`, `/n2`, with the same link text); `/later` is unrelated prose linking `/l1`,
 * `/l2`. The home page links `/orig`, `/near`, `/later` in that order, so a crawler that fetches them in
 * order meets `/near` second: a crawler that queues the links of a near duplicate at its lowest priority
 * fetches `/l1`, `/l2` before `/n1`, `/n2`, though it found `/n1`, `/n2` first.
 */
import { hash32, rng } from "../random.ts";
import { prose, prosePool } from "../text.ts";
import type { HostBehaviour } from "../types.ts";
import { page, PLAIN_ROBOTS } from "./respond.ts";
import { routedHost } from "./routes.ts";

export function nearDupHosts(seed: number): Record<string, HostBehaviour> {
  const { words } = prosePool(seed);
  const text = prose(rng(hash32(seed, "neardup.test", "text")), words, 450);
  const later = prose(rng(hash32(seed, "neardup.test", "later")), words, 450);
  const swapped = (() => {
    const w = text.split(" ");
    w[200] = "yesterday";
    return w.join(" ");
  })();
  const withLinks = (t: string, links: string[]) =>
    page("article", `<p>${t}</p>\n<ul>${links.map((l) => `<li><a href="${l}">more</a></li>`).join("")}</ul>\n`);
  const leaf = (name: string) => page(name, `<p>${prose(rng(hash32(seed, "neardup.test", name)), words, 120)}</p>\n`);
  return {
    "neardup.test": routedHost({
      description:
        "`/near` is `/orig` but for one word (SimHash within 3 bits), linking `/n1`, `/n2`; `/later` unrelated, linking `/l1`, `/l2`",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": page(
          "neardup",
          `<ul><li><a href="/orig">orig</a></li><li><a href="/near">near</a></li><li><a href="/later">later</a></li></ul>\n`,
        ),
        "/orig": withLinks(text, ["/o1", "/o2"]),
        "/near": withLinks(swapped, ["/n1", "/n2"]),
        "/later": withLinks(later, ["/l1", "/l2"]),
        ...Object.fromEntries(["o1", "o2", "n1", "n2", "l1", "l2"].map((n) => [`/${n}`, leaf(n)])),
      },
      mustFetch: ["/", "/orig", "/near", "/later", "/o1", "/o2", "/n1", "/n2", "/l1", "/l2"],
    }),
  };
}
