/**
 * The front-queue class of a URL (ARCHITECTURE.md, "Frontier node": three levels). Level 1 holds what
 * is most worth a fetch: home pages, which lead to everything else on a host, and pages that changed
 * at the last visit, which are likely to change again. Level 2 holds shallow pages, at most
 * `shallowDepth` links (default 3) from a seed, where most of a site's content sits; level 3 holds the
 * rest, which are the first to be dropped when the frontier is full.
 *
 * A URL admitted for the first time goes to level 3 whatever its depth when it is a media file (pages
 * first: a page leads to more) or was found on a near duplicate of a stored page (its links are most
 * likely links already seen there); a home page keeps level 1 either way.
 */
import { DEFAULT_POLICY, type PolicyConfig } from "../config/index.ts";
import type { UrlKind } from "../model/index.ts";

/** 1 is served first, 3 last. */
export type Priority = 1 | 2 | 3;

/** The class of a page; `cfg` defaults to the policy defaults (shallow means depth <= 3). */
export function priorityFor(
  page: { readonly isHomePage: boolean; readonly changedLastVisit: boolean; readonly depth: number },
  cfg: Pick<PolicyConfig, "shallowDepth"> = DEFAULT_POLICY,
): Priority {
  if (page.isHomePage || page.changedLastVisit) return 1;
  return page.depth <= cfg.shallowDepth ? 2 : 3;
}

/** The class of a URL admitted for the first time (see the module comment). */
export function admissionPriority(
  url: { readonly isHomePage: boolean; readonly depth: number; readonly kind?: UrlKind; readonly foundOnNearDuplicate?: boolean },
  cfg: Pick<PolicyConfig, "shallowDepth"> = DEFAULT_POLICY,
): Priority {
  if (url.isHomePage) return 1;
  if (url.kind === "media" || url.foundOnNearDuplicate) return 3;
  return priorityFor({ isHomePage: false, changedLastVisit: false, depth: url.depth }, cfg);
}
