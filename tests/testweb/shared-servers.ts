/**
 * A web as it is hosted: many names on few servers. `sharedServerHosts` makes `count` small sites named
 * `s<i>.<domain>.test` over a few registrable domains, each name given one of `addresses` (round robin, so
 * every domain spans every address), and the hosts-file text a crawler that resolves names itself reads to
 * find them. Each site has a home page linking its one other page and two other sites' home pages (with the
 * test web's port, since the crawler dials the names directly), and a robots.txt that forbids /private/.
 * Pages send their head at once and their body `responseMs` later, so requests to one server overlap.
 */
import { hash32, rng } from "./random.ts";
import { prose, prosePool } from "./text.ts";
import type { HostBehaviour } from "./types.ts";

export const SHARED_DOMAINS = ["alpha", "bravo", "charlie", "delta"] as const;

export interface SharedServerWeb {
  /** Host name -> behaviour, for `extraHosts`. */
  hosts: Record<string, HostBehaviour>;
  /** Host name -> the address it resolves to. */
  addressOf: Map<string, string>;
  /** The /etc/hosts-format text naming every host. */
  hostsFile: string;
  /** `http://name:port/` of every host. */
  homePages: string[];
  /** Every page a correct crawler fetches from the home pages (robots.txt aside). */
  pages: string[];
}

/** `responseMs`: how long each page's body takes after its head (robots.txt answers at once), so requests to one server overlap. */
export function sharedServerHosts(count: number, addresses: readonly string[], port: number, responseMs = 0): SharedServerWeb {
  const names = Array.from({ length: count }, (_, i) => `s${i}.${SHARED_DOMAINS[i % SHARED_DOMAINS.length]}.test`);
  const at = (name: string, path = "/") => `http://${name}:${port}${path}`;
  const hosts: Record<string, HostBehaviour> = {};
  // Text of its own on every page, so no page is a near-duplicate of another (whose links would not be followed).
  const { words } = prosePool(1);
  const text = (name: string, path: string) => `<p>${prose(rng(hash32(name, path)), words, 80)}</p>`;
  const addressOf = new Map<string, string>();
  names.forEach((name, i) => {
    addressOf.set(name, addresses[Math.floor(i / SHARED_DOMAINS.length) % addresses.length]!);
    const neighbours = [names[(i + 1) % count]!, names[(i + 7) % count]!];
    hosts[name] = {
      description: `a two-page site on a shared server (${addressOf.get(name)})`,
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
      mustFetch: ["/", "/about"],
      mustNotFetch: ["/private/x"],
      serve(_req, res, ctx) {
        const body =
          ctx.path === "/"
            ? `<!doctype html><title>${name}</title>${text(name, "/")}<a href="/about">about</a> <a href="/private/x">private</a> ${neighbours
                .map((n) => `<a href="${at(n)}">${n}</a>`)
                .join(" ")}`
            : ctx.path === "/about"
              ? `<!doctype html><title>about ${name}</title>${text(name, "/about")}<a href="/">home</a>`
              : undefined;
        res.statusCode = body === undefined ? 404 : 200;
        res.setHeader("content-type", "text/html; charset=utf-8");
        if (responseMs === 0) {
          res.end(body ?? "not found");
          return;
        }
        // The head at once, the body after `responseMs`: the request is answered (the crawler knows it
        // arrived) but still open, so the next request to this server can overlap it.
        res.flushHeaders();
        setTimeout(() => res.end(body ?? "not found"), responseMs);
      },
    };
  });
  const hostsFile = names.map((name) => `${addressOf.get(name)} ${name}`).join("\n");
  return {
    hosts,
    addressOf,
    hostsFile: `# ${count} names on ${addresses.length} servers\n${hostsFile}\n`,
    homePages: names.map((n) => at(n)),
    pages: names.flatMap((n) => [`http://${n}/`, `http://${n}/about`]),
  };
}
