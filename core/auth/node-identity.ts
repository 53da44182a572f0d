/**
 * Who a peer is, as its TLS certificate says: a node certificate of the cluster's private CA names its
 * role and node id in one subjectAltName URI, `crawler://<role>/<node id>` (`crawler://frontier/f1`).
 * `crawlctl certs node` writes it; a fleet's own PKI must write the same (an openssl line is in the
 * README's security section). A frontier node's gRPC API serves only the roles in FRONTIER_CALLERS: the
 * coordinator (host and URL questions, drain) and other frontier nodes (handoffs); a fetch node, the most
 * exposed process (it parses whatever the web sends), holds a certificate of the same CA and is refused.
 * Pure: the caller hands in the peer certificate's subjectAltName text as node:tls reports it.
 */
import { checkToken } from "../cluster/index.ts";

export const IDENTITY_ROLES = ["coordinator", "frontier", "fetch", "nats", "redis"] as const;
export type IdentityRole = (typeof IDENTITY_ROLES)[number];

export interface NodeIdentity {
  readonly role: IdentityRole;
  readonly id: string;
}

/** The roles a frontier node's FrontierService answers. */
export const FRONTIER_CALLERS: readonly IdentityRole[] = ["coordinator", "frontier"];

const SCHEME = "crawler://";

/** The subjectAltName URI that names `role` and `id`; throws on a role or id the cluster would not accept. */
export function identityUri(identity: NodeIdentity): string {
  if (!(IDENTITY_ROLES as readonly string[]).includes(identity.role)) throw new Error(`unknown role "${identity.role}"`);
  checkToken("node id", identity.id);
  return `${SCHEME}${identity.role}/${identity.id}`;
}

/** The identity a URI names, or undefined when it is not one of ours. */
export function parseIdentityUri(uri: string): NodeIdentity | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const [role, id, ...rest] = uri.slice(SCHEME.length).split("/");
  if (rest.length > 0 || role === undefined || id === undefined) return undefined;
  if (!(IDENTITY_ROLES as readonly string[]).includes(role)) return undefined;
  try {
    checkToken("node id", id);
  } catch {
    return undefined;
  }
  return { role: role as IdentityRole, id };
}

/**
 * The identity in a certificate's subjectAltName, in node:tls's text form
 * (`IP Address:127.0.0.1, DNS:localhost, URI:crawler://frontier/f1`). Undefined when it names none, or
 * more than one (a certificate is one node).
 */
export function identityOfAltNames(altNames: string | undefined): NodeIdentity | undefined {
  const found = (altNames ?? "")
    .split(/,\s*/)
    .filter((entry) => entry.startsWith(`URI:${SCHEME}`))
    .map((entry) => parseIdentityUri(entry.slice("URI:".length)));
  if (found.length !== 1) return undefined;
  return found[0];
}
