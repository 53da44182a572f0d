/**
 * A host made of a fixed table of routes: most special hosts are a handful of pages plus one odd rule,
 * and this keeps each of them a literal table. A route is either the HTML of a 200 page or a handler for
 * anything else (a status, a redirect, a reset). Unlisted paths are 404. The query is ignored when
 * looking up a route unless the table has the exact path-and-query.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostBehaviour, RobotsPolicy, ServeContext } from "../types.ts";
import { HTML, notFound, pathOnly, send } from "./respond.ts";

export type Route = string | ((req: IncomingMessage, res: ServerResponse, ctx: ServeContext) => void);

export interface RoutedHost {
  description: string;
  robots: RobotsPolicy;
  routes: Record<string, Route>;
  /** Answers paths missing from the table (default 404). */
  fallback?: (req: IncomingMessage, res: ServerResponse, ctx: ServeContext) => void;
  mustFetch?: readonly string[];
  mustNotFetch?: readonly string[];
}

export function routedHost(spec: RoutedHost): HostBehaviour {
  const servesRobots = "/robots.txt" in spec.routes;
  const servesSitemap = "/sitemap.xml" in spec.routes;
  return {
    description: spec.description,
    robots: spec.robots,
    servesRobots,
    servesSitemap,
    mustFetch: spec.mustFetch,
    mustNotFetch: spec.mustNotFetch,
    serve(req, res, ctx) {
      const route = spec.routes[ctx.path] ?? spec.routes[pathOnly(ctx.path)];
      if (route === undefined) {
        if (spec.fallback) spec.fallback(req, res, ctx);
        else notFound(res);
      } else if (typeof route === "string") {
        send(res, 200, route, HTML);
      } else {
        route(req, res, ctx);
      }
    },
  };
}
