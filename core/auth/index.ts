/**
 * Authentication shared by every API the crawler serves: rotatable bearer-token sets compared in constant
 * time, the `Authorization` header's token, and the config kind of a token list; and node identities, the
 * role and id a cluster certificate names (`crawler://<role>/<id>`), with the roles a frontier node
 * answers. Pure.
 */
export { bearerToken, TokenSet, tokenListKind } from "./bearer-tokens.ts";
export {
  FRONTIER_CALLERS,
  IDENTITY_ROLES,
  identityOfAltNames,
  identityUri,
  parseIdentityUri,
  type IdentityRole,
  type NodeIdentity,
} from "./node-identity.ts";
