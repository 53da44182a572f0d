/**
 * `render.test`: pages built by their scripts, for the rendering pool (engine/render). Its home page is an
 * app shell (an empty `<div id="root">`) whose script, `/app.js`, writes links into the page and loads
 * more from JSON by `fetch` (`/api/items.json`) and by XMLHttpRequest (`/api/more.json`); none of those
 * links is in any HTML the host sends. The script also asks for what a polite renderer never fetches: a
 * script robots.txt forbids (`/private/tracker.js`), a script on another host (`render-cdn.test`), an
 * image and a font. `/never-loads` builds its link, then waits forever for a script the host never
 * finishes sending; `/crash` builds its link, then eats memory until its tab dies. The pages the scripts
 * link to are plain HTML with enough text that `--render auto` leaves them as received.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, PLAIN_ROBOTS, send } from "./respond.ts";
import { routedHost } from "./routes.ts";

/** The links `render.test/`'s scripts build (paths), found only by rendering. */
export const RENDERED_LINKS = ["/app/one", "/app/two", "/item/1", "/item/2", "/item/3", "/never-loads", "/crash"];
/** The links the two never-settling pages build before they hang or crash. */
export const RENDERED_LATE_LINKS = { "/never-loads": "/from-never-loads", "/crash": "/from-crash" } as const;

const JS = "text/javascript; charset=utf-8";
const JSON_TYPE = "application/json";

const shell = (title: string, script: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><div id="root"></div>\n${script}</body></html>\n`;

const APP_JS = `
const root = document.getElementById("root");
const add = (href) => { const a = document.createElement("a"); a.href = href; a.textContent = href; root.appendChild(a); };
["/app/one", "/app/two", "/never-loads", "/crash"].forEach(add);
fetch("/api/items.json").then((r) => r.json()).then((items) => items.forEach((i) => add("/item/" + i.id)));
const x = new XMLHttpRequest();
x.open("GET", "/api/more.json");
x.onload = () => JSON.parse(x.responseText).forEach((i) => add("/item/" + i.id));
x.send();
for (const src of ["/private/tracker.js", "http://render-cdn.test/lib.js"]) {
  const s = document.createElement("script"); s.src = src; document.head.appendChild(s);
}
const img = new Image(); img.src = "/img/logo.png"; root.appendChild(img);
new FontFace("x", "url(/fonts/x.woff2)").load().catch(() => {});
`;

const prose = (name: string) =>
  `<p>${Array.from({ length: 60 }, (_, i) => `This ${name} page is plain HTML, sentence ${i}, and needs no script to read.`).join(" ")}</p>`;

export function renderHosts(): Record<string, HostBehaviour> {
  const leaf = (name: string) => page(name, `${prose(name)}\n${linkList(["/"])}`);
  return {
    "render.test": routedHost({
      description:
        "an app shell whose `/app.js` builds links and loads more from JSON (fetch and XHR), asks for a robots-forbidden script, another host's script, an image and a font; `/never-loads` hangs on a script, `/crash` eats its tab's memory",
      robots: PLAIN_ROBOTS,
      routes: {
        "/": shell("render", '<script src="/app.js"></script>'),
        "/app.js": (_q, res) => send(res, 200, APP_JS, JS),
        "/api/items.json": (_q, res) => send(res, 200, JSON.stringify([{ id: 1 }, { id: 2 }]), JSON_TYPE),
        "/api/more.json": (_q, res) => send(res, 200, JSON.stringify([{ id: 3 }]), JSON_TYPE),
        "/app/one": leaf("app one"),
        "/app/two": leaf("app two"),
        "/item/1": leaf("item 1"),
        "/item/2": leaf("item 2"),
        "/item/3": leaf("item 3"),
        "/never-loads": shell(
          "never loads",
          `<script>document.getElementById("root").innerHTML = '<a href="/from-never-loads">on</a>';</script>\n<script src="/hang.js"></script>`,
        ),
        // Headers go out, the body never ends: the page stays loading until the client gives up.
        "/hang.js": (_q, res) => {
          res.statusCode = 200;
          res.setHeader("content-type", JS);
          res.write("// waiting\n");
        },
        "/from-never-loads": leaf("from never loads"),
        "/crash": shell(
          "crash",
          `<script>document.getElementById("root").innerHTML = '<a href="/from-crash">on</a>';
setTimeout(() => { const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random())); }, 50);</script>`,
        ),
        "/from-crash": leaf("from crash"),
        "/private/tracker.js": (_q, res) => send(res, 200, "// must never be fetched\n", JS),
        "/img/logo.png": (_q, res) => send(res, 200, new Uint8Array(8), "image/png"),
        "/fonts/x.woff2": (_q, res) => send(res, 200, new Uint8Array(8), "font/woff2"),
      },
      mustFetch: ["/"],
      mustNotFetch: ["/private/tracker.js", "/img/logo.png", "/fonts/x.woff2"],
    }),
    "render-cdn.test": routedHost({
      description: "`/lib.js`, the script `render.test/` asks for on another host (a render never fetches it)",
      robots: PLAIN_ROBOTS,
      routes: { "/lib.js": (_q, res) => send(res, 200, "// another host\n", JS), "/": page("cdn", "") },
    }),
  };
}
