/**
 * Authentication shared by every API the crawler serves: rotatable bearer-token sets compared in constant
 * time, the `Authorization` header's token, and the config kind of a token list. Pure.
 */
export { bearerToken, TokenSet, tokenListKind } from "./bearer-tokens.ts";
