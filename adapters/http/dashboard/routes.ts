/**
 * The dashboard's routes, one implementation for its two sources (the coordinator's admin API over the
 * cluster, `crawl --http` over its own frontier):
 *
 *   GET /dashboard               the page (static/index.html), /dashboard/app.js, /dashboard/app.css: plain
 *                                files read once from beside this module, served with a strict CSP and
 *                                open to anyone (they hold no data; the data calls need the token)
 *   GET /dashboard/config.json   {tokenRequired, source}: whether the page must ask for a token first
 *   GET /v1/dashboard            the Dashboard JSON (core/dashboard)
 *   GET /v1/hosts/:host          {host: HostInfo}
 *   GET /v1/urls/explain?url=    {explanation: UrlExplanation}
 *
 * Authentication and error answers are the mounting app's (json-api.ts): it must leave `isDashboardAsset`
 * paths open and check the bearer token on the rest. The files are read lazily, so a process that never
 * serves the page (a fetch node on Deno, whose read permission is its WARC directory) never touches them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import type { Dashboard } from "../../../core/dashboard/index.ts";
import { requiredQuery } from "../json-api.ts";

/** Where the dashboard's data comes from. Errors are the project's (core/errors), mapped by the app. */
export interface DashboardSource {
  readonly kind: Dashboard["source"];
  dashboard(): Promise<Dashboard>;
  /** The HostInfo of a host key or URL, as JSON. */
  host(host: string): Promise<unknown>;
  /** The UrlExplanation of a URL, as JSON. */
  explainUrl(url: string): Promise<unknown>;
}

export interface DashboardRoutesOptions {
  /** Whether the API needs a bearer token (the page then asks for one before polling). */
  tokenRequired: boolean;
}

const ASSETS: Record<string, { file: string; type: string }> = {
  "/dashboard": { file: "index.html", type: "text/html; charset=utf-8" },
  "/dashboard/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/dashboard/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

/** The page may load only its own files and call only its own origin; nothing inline, no framing. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Paths served without a token: the page's static files and its config. */
export function isDashboardAsset(path: string): boolean {
  return path in ASSETS || path === "/dashboard/config.json";
}

export function dashboardRoutes(source: DashboardSource, opts: DashboardRoutesOptions): Hono {
  const app = new Hono();
  const files = new Map<string, string>();
  const read = (file: string): string => {
    let text = files.get(file);
    if (text === undefined) {
      text = readFileSync(fileURLToPath(new URL(`./static/${file}`, import.meta.url)), "utf8");
      files.set(file, text);
    }
    return text;
  };
  for (const [path, asset] of Object.entries(ASSETS)) {
    app.get(path, (c) =>
      c.body(read(asset.file), 200, {
        "content-type": asset.type,
        "cache-control": "no-cache",
        "content-security-policy": CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
      }),
    );
  }
  app.get("/dashboard/config.json", (c) => c.json({ tokenRequired: opts.tokenRequired, source: source.kind }));
  app.get("/v1/dashboard", async (c) => c.json(await source.dashboard()));
  app.get("/v1/hosts/:host", async (c) => c.json({ host: await source.host(c.req.param("host")) }));
  app.get("/v1/urls/explain", async (c) => c.json({ explanation: await source.explainUrl(requiredQuery(c.req.query("url"), "url")) }));
  return app;
}
