/**
 * Reads the indexing directives a page can carry outside robots.txt: the `<meta name="robots">` content
 * and the `X-Robots-Tag` response header. Only `noindex`, `nofollow` and `none` change what the crawler
 * does; every other directive (max-snippet, unavailable_after, index, follow, all …) is accepted and
 * ignored. Directives only ever restrict: a later `index` or `follow` never undoes an earlier `noindex`.
 */

export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

/**
 * Directives that take a value after a colon. A `name:` prefix that is not one of these names a user
 * agent (`googlebot: noindex`), which is how the header scopes the directives after it.
 */
const VALUED_DIRECTIVES = new Set(["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"]);

const AGENT_PREFIX = /^([A-Za-z0-9._-]+)\s*:\s*(.*)$/s;

/** Folds a run of directives (comma or space separated, any case) into `into`. */
export function applyRobotsDirectives(content: string, into: RobotsDirectives): void {
  for (const raw of content.split(/[\s,]+/)) {
    switch (raw.toLowerCase()) {
      case "noindex":
        into.noindex = true;
        break;
      case "nofollow":
        into.nofollow = true;
        break;
      case "none":
        into.noindex = true;
        into.nofollow = true;
        break;
    }
  }
}

/**
 * Parses an `X-Robots-Tag` value. Several header lines joined with ", " (as fetch APIs do) parse the same
 * as one. Unscoped directives apply to every crawler; a `name:` prefix scopes the directives that follow
 * it, up to the next prefix, to that agent, and they apply only when it equals `agentToken`
 * (case-insensitive). Generic and agent-scoped directives combine, the most restrictive winning.
 */
export function parseXRobotsTag(headerValue: string | undefined, agentToken?: string): RobotsDirectives {
  const result: RobotsDirectives = { noindex: false, nofollow: false };
  if (!headerValue) return result;
  const agent = agentToken?.toLowerCase();
  let applies = true;
  for (const part of headerValue.split(",")) {
    let directives = part.trim();
    const scoped = AGENT_PREFIX.exec(directives);
    if (scoped && !VALUED_DIRECTIVES.has(scoped[1]!.toLowerCase())) {
      applies = agent !== undefined && scoped[1]!.toLowerCase() === agent;
      directives = scoped[2]!;
    }
    if (applies) applyRobotsDirectives(directives, result);
  }
  return result;
}
