/** Checks of untrusted JSON input from the APIs (json-input.ts). */
export { clip, jsonKind, jsonObject, onlyFields } from "./json-input.ts";
