/**
 * HCL to JSON offline, with @cdktf/hcl2json (Go's HCL parser compiled to WebAssembly; runs on Bun). Its
 * type declarations pull in the DOM library (`/// <reference lib="dom" />`), which would replace Bun's
 * own types across the whole project, so it is loaded untyped and given the one signature used here.
 */
const specifier: string = "@cdktf/hcl2json";
const hcl2json = (await import(specifier)) as { parse(fileName: string, source: string): Promise<Record<string, unknown>> };

/** Parses one .tf file's text into hcl2json's JSON form (blocks as arrays, expressions as "${...}"). */
export function parseHcl(fileName: string, source: string): Promise<Record<string, unknown>> {
  return hcl2json.parse(fileName, source);
}
