/**
 * `media.test` and `media-cdn.test`: media-heavy pages. The pages name images (`img` src and srcset,
 * `picture`/`source`), a video with its poster and a second source, an audio file, an image on another host,
 * an image robots.txt disallows, a `data:` image and one image larger than a small media body cap. Every
 * media file answers with its own bytes and a media type, and contains an `<a href="/trap-media">` that a
 * crawler which parsed media would follow. `MEDIA_ON_PAGE` lists, per page, the media URLs a crawler must
 * list for it (resolved, each once, in document order): the test's oracle, written out by hand.
 */
import type { HostBehaviour } from "../types.ts";
import { linkList, page, send } from "./respond.ts";
import { routedHost, type Route } from "./routes.ts";

/** Size of `/img/huge.jpg`: far above a 64 KiB media body cap, far below the default 20 MiB. */
export const MEDIA_HUGE_BYTES = 512 * 1024;

const ROBOTS = { kind: "rules" as const, text: "User-agent: *\nDisallow: /private/\n" };
const TRAP = `<a href="/trap-media">a link inside a media file: never followed</a>`;

const HOME = page(
  "media",
  `${linkList(["/gallery", "/video"])}
<img src="/img/logo.png" alt="logo">
<img src="/img/a.jpg" srcset="/img/a-480.jpg 480w, /img/a-960.jpg 960w" alt="a">
<picture><source srcset="/img/p.webp 1x, /img/p@2x.webp 2x" type="image/webp"><img src="/img/p.jpg" alt="p"></picture>
<img src="http://media-cdn.test/shared/banner.jpg" alt="banner">
<img src="/private/secret.jpg" alt="disallowed">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="inline">
`,
);

const GALLERY = page(
  "gallery",
  `${linkList(["/"])}
${Array.from({ length: 6 }, (_, i) => `<img src="/img/g${i}.jpg" alt="g${i}">`).join("\n")}
<img src="/img/a.jpg" alt="a again"><img src="/img/huge.jpg" alt="huge">
`,
);

const VIDEO = page(
  "video",
  `${linkList(["/"])}
<video src="/media/clip.mp4" poster="/img/poster.jpg" controls><source src="/media/clip.webm" type="video/webm"></video>
<audio controls><source src="/media/sound.ogg" type="audio/ogg"></audio>
`,
);

const u = (path: string) => `http://media.test${path}`;

/** The media each page names, as a crawler lists them: resolved, each once, in document order. */
export const MEDIA_ON_PAGE: Record<string, string[]> = {
  "http://media.test/": [
    ...["/img/logo.png", "/img/a.jpg", "/img/a-480.jpg", "/img/a-960.jpg", "/img/p.webp", "/img/p@2x.webp", "/img/p.jpg"].map(u),
    "http://media-cdn.test/shared/banner.jpg",
    u("/private/secret.jpg"),
  ],
  "http://media.test/gallery": [...Array.from({ length: 6 }, (_, i) => u(`/img/g${i}.jpg`)), u("/img/a.jpg"), u("/img/huge.jpg")],
  "http://media.test/video": [u("/media/clip.mp4"), u("/img/poster.jpg"), u("/media/clip.webm"), u("/media/sound.ogg")],
};

/** A media file: a few magic bytes of its type, its path, and a link that must never be followed. */
function mediaFile(type: string, magic: number[], size?: number): Route {
  return (_req, res, ctx) => {
    const head = Buffer.concat([Buffer.from(magic), Buffer.from(` ${ctx.host}${ctx.path} ${TRAP} `)]);
    const body = size === undefined ? head : Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x2e)]);
    send(res, 200, body, type);
  };
}

const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const PNG = [0x89, 0x50, 0x4e, 0x47];
const WEBP = [0x52, 0x49, 0x46, 0x46];

export function mediaHosts(): Record<string, HostBehaviour> {
  const images: Record<string, Route> = {};
  for (const path of ["/img/a.jpg", "/img/a-480.jpg", "/img/a-960.jpg", "/img/p.jpg", "/img/poster.jpg", "/private/secret.jpg"]) {
    images[path] = mediaFile("image/jpeg", JPEG);
  }
  for (let i = 0; i < 6; i++) images[`/img/g${i}.jpg`] = mediaFile("image/jpeg", JPEG);
  return {
    "media.test": routedHost({
      description:
        "pages naming images (src, srcset, picture), a video with poster and source, audio, a cross-host image, a disallowed image, a data: image and a 512 KiB image; media bytes contain a link never to follow",
      robots: ROBOTS,
      routes: {
        "/": HOME,
        "/gallery": GALLERY,
        "/video": VIDEO,
        ...images,
        "/img/logo.png": mediaFile("image/png", PNG),
        "/img/p.webp": mediaFile("image/webp", WEBP),
        "/img/p@2x.webp": mediaFile("image/webp", WEBP),
        "/img/huge.jpg": mediaFile("image/jpeg", JPEG, MEDIA_HUGE_BYTES),
        "/media/clip.mp4": mediaFile("video/mp4", [0, 0, 0, 0x18]),
        "/media/clip.webm": mediaFile("video/webm", [0x1a, 0x45, 0xdf, 0xa3]),
        "/media/sound.ogg": mediaFile("audio/ogg", [0x4f, 0x67, 0x67, 0x53]),
      },
      mustFetch: ["/", "/gallery", "/video"],
      mustNotFetch: ["/trap-media", "/private/secret.jpg"],
    }),
    "media-cdn.test": routedHost({
      description: "another host's image, named by media.test",
      robots: ROBOTS,
      routes: { "/": page("cdn", "<p>static files</p>\n"), "/shared/banner.jpg": mediaFile("image/jpeg", JPEG) },
      mustNotFetch: ["/trap-media"],
    }),
  };
}
