/**
 * A news site whose feed grows while a crawl runs: its home page names an RSS feed in
 * `<link rel="alternate" type="application/rss+xml">` and links the newest posts; `/feed.xml` lists every
 * post published so far, newest first, each with its pubDate; `/post/N` is one post. `publish()` adds the
 * next post, to the feed and to the home page at once, as a site does, so a crawler learns of it from the
 * feed when it reads the feed again (the home page names the feed, and changes too). The feed sends an ETag
 * (and Last-Modified) that changes with each post, and answers a conditional GET for the same posts with 304.
 */
import type { HostBehaviour } from "./types.ts";

export interface NewsSite {
  behaviour: HostBehaviour;
  /** Adds the next post; returns its path. */
  publish(): string;
  /** Paths of the posts published so far, oldest first. */
  readonly posts: readonly string[];
}

export function newsSite(host: string, initialPosts = 3): NewsSite {
  const posts: string[] = [];
  const publishedAt: number[] = [];
  const publish = (): string => {
    const path = `/post/${posts.length}`;
    posts.push(path);
    publishedAt.push(Date.now());
    return path;
  };
  for (let i = 0; i < initialPosts; i++) publish();
  const feed = () => {
    const items = posts
      .map(
        (path, i) =>
          `<item><title>Post ${i}</title><link>http://${host}${path}</link><pubDate>${new Date(publishedAt[i]!).toUTCString()}</pubDate></item>`,
      )
      .reverse()
      .join("\n");
    return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>${host}</title><link>http://${host}/</link>\n${items}\n</channel></rss>\n`;
  };
  const behaviour: HostBehaviour = {
    description: "a news site whose RSS feed (named by its home page) grows while the crawl runs",
    robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
    mustFetch: ["/", "/feed.xml"],
    serve(req, res, ctx) {
      if (ctx.path === "/") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          `<!doctype html><html><head><title>${host}</title><link rel="alternate" type="application/rss+xml" title="News" href="/feed.xml"></head>` +
            `<body><h1>Latest: post ${posts.length - 1}</h1><a href="${posts[0]}">the first post</a></body></html>`,
        );
      } else if (ctx.path === "/feed.xml") {
        // Validators that change with each post: a conditional GET for the same posts is answered 304.
        const etag = `"posts-${posts.length}"`;
        res.setHeader("etag", etag);
        res.setHeader("last-modified", new Date(Math.floor(publishedAt[posts.length - 1]! / 1000) * 1000).toUTCString());
        if (req.headers["if-none-match"] === etag) {
          res.statusCode = 304;
          res.end();
          return;
        }
        res.setHeader("content-type", "application/rss+xml");
        res.end(feed());
      } else if (posts.includes(ctx.path)) {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          `<!doctype html><title>${ctx.path}</title><p>Post ${ctx.path} of ${host}, with words of its own: ${ctx.path.repeat(20)}</p>`,
        );
      } else {
        res.statusCode = 404;
        res.end("not found");
      }
    },
  };
  return { behaviour, publish, posts };
}
