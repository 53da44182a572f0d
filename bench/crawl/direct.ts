/**
 * `--direct` (issue 26, item 1): the crawl with no proxy, as a host on the web sees it. Each test-web host
 * gets a loopback address of its own (Linux routes all of 127.0.0.0/8 to lo), the test web listens on every
 * one of them on one port and writes that port into its links (`portInLinks`), and the crawler resolves the
 * names from a hosts file and dials them itself. A connection then carries one host's requests only, so the
 * test web's connections per host are what a real host would count; and the per-address politeness
 * (--max-per-address, --address-gap) applies per host, as on the web where most hosts have an address each.
 * Through the proxy (the default) connections are pooled over all hosts and count the proxy's pool instead.
 */

/** The loopback address of the i-th host (0-based): 127.1.0.1, 127.1.0.2, ... (65,534 hosts at most). */
export function directAddress(i: number): string {
  const n = i + 1;
  if (!Number.isInteger(i) || i < 0 || n > 0xfffe) throw new Error(`--direct: no loopback address for host ${i} (at most 65,534 hosts)`);
  return `127.1.${n >> 8}.${n & 255}`;
}

/** The /etc/hosts-format text the crawler reads with --hosts-file: one line per host, its own address. */
export function directHostsFile(hosts: readonly string[]): string {
  return `# crawl bench --direct: one loopback address per host\n${hosts.map((h, i) => `${directAddress(i)} ${h}`).join("\n")}\n`;
}

/** What our crawlers (embedded, and every role of the cluster) are given instead of --proxy. */
export function directCrawlArgs(hostsFile: string): string[] {
  return ["--hosts-file", hostsFile, "--allow-private-addresses"];
}

/** What the test web's "connections per host" counts in a run, for the report's line. */
export function connectionsMeaning(direct: boolean | undefined): string {
  return direct
    ? "direct: distinct connections to each host's own address, what the host sees"
    : "through the proxy: distinct proxy connections carrying each host's requests, pooled over all hosts";
}
