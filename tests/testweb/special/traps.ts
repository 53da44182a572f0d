/**
 * Crawler traps: infinite URL spaces a crawler must cut off with its own limits (URL length, depth from
 * the seed, pages per host), since robots.txt allows them all. `calendar.test` links each day to the next
 * and previous day, `deep.test` links each page one level deeper, `repeat.test` uses a relative href
 * (`a/b/`) that grows the path by the same two segments at every step.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, notFound, page, PLAIN_ROBOTS, send } from "./respond.ts";

const DAY_MS = 86_400_000;

function ymd(t: number): string {
  const d = new Date(t);
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  return `/cal/${pad(d.getUTCFullYear(), 4)}/${pad(d.getUTCMonth() + 1, 2)}/${pad(d.getUTCDate(), 2)}`;
}

export function trapHosts(): Record<string, HostBehaviour> {
  return {
    "calendar.test": {
      description: "`/cal/YYYY/MM/DD` pages link the next and previous day, forever",
      robots: PLAIN_ROBOTS,
      mustFetch: ["/", "/cal/2025/01/01"],
      serve(_req, res, ctx) {
        if (ctx.path === "/") {
          send(res, 200, page("calendar", linkList(["/cal/2025/01/01"])));
          return;
        }
        const m = /^\/cal\/(\d{4})\/(\d{2})\/(\d{2})$/.exec(ctx.path);
        const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
        if (!m || Number.isNaN(t) || ymd(t) !== ctx.path) {
          notFound(res);
          return;
        }
        const links = [t + DAY_MS, t - DAY_MS].filter((x) => x >= Date.UTC(1900, 0, 1) && x < Date.UTC(10000, 0, 1));
        const body = `<p>Events on ${ctx.path.slice(5)}: none.</p>\n${linkList([...links.map(ymd), "/"])}`;
        send(res, 200, page(`day ${ctx.path.slice(5)}`, body));
      },
    },
    "deep.test": {
      description: "`/d/1/2/…/n` links `/d/1/2/…/n/n+1`, forever",
      robots: PLAIN_ROBOTS,
      mustFetch: ["/", "/d/1"],
      serve(_req, res, ctx) {
        const segments = ctx.path === "/" ? [] : ctx.path.split("/").slice(2);
        const valid = ctx.path === "/" || (ctx.path.startsWith("/d/") && segments.every((s, i) => s === String(i + 1)));
        if (!valid) {
          notFound(res);
          return;
        }
        const next = `/d/${[...segments, String(segments.length + 1)].join("/")}`;
        send(res, 200, page(`depth ${segments.length}`, `<p>Level ${segments.length}.</p>\n${linkList([next])}`));
      },
    },
    "repeat.test": {
      description: "every page under `/(a/b/)*` links the relative `a/b/`, so paths repeat `a/b/` forever",
      robots: PLAIN_ROBOTS,
      mustFetch: ["/", "/a/b/"],
      serve(_req, res, ctx) {
        if (!/^\/(a\/b\/)*$/.test(ctx.path)) {
          notFound(res);
          return;
        }
        const level = (ctx.path.length - 1) / 4;
        send(res, 200, page(`repeat ${level}`, `<p>Repetition ${level}.</p>\n${linkList(["a/b/"])}`));
      },
    },
  };
}
