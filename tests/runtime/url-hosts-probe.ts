/**
 * Run by url-hosts.test.ts under Deno (and under Bun for comparison): for each URL given as a JSON array in
 * the first argument, prints what the runtime's WHATWG URL parser makes of its host and the address
 * policy's verdict on it (core/net, the same pure code on both runtimes), one JSON array on stdout.
 */
import { AddressPolicy } from "../../core/net/index.ts";

const urls = JSON.parse(process.argv[2] ?? "[]") as string[];
const policy = new AddressPolicy();
const out = urls.map((url) => {
  const parsed = URL.parse(url);
  if (!parsed) return { url, hostname: null, verdict: null };
  return { url, hostname: parsed.hostname, verdict: policy.checkHost(parsed.hostname)?.reason ?? "allowed" };
});
process.stdout.write(`${JSON.stringify(out)}\n`);
