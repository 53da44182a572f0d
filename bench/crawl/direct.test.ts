import { expect, test } from "bun:test";
import { parseHostsFile } from "../../engine/fetch/http/index.ts";
import { directAddress, directCrawlArgs, directHostsFile } from "./direct.ts";

test("--direct: every host gets a loopback address of its own, in a hosts file the crawler's own parser reads", () => {
  const hosts = Array.from({ length: 2000 }, (_, i) => `site${i}.test`);
  const names = parseHostsFile(directHostsFile(hosts), "hosts");
  expect(names.size).toBe(2000);
  const addresses = hosts.map((h) => {
    const found = names.get(h)!;
    expect(found).toHaveLength(1);
    return found[0]!.address;
  });
  expect(new Set(addresses).size).toBe(2000);
  for (const a of addresses) expect(a.startsWith("127.")).toBe(true);
  expect(addresses.slice(0, 2)).toEqual(["127.1.0.1", "127.1.0.2"]);
  expect(directAddress(255)).toBe("127.1.1.0");
  expect(() => directAddress(0xfffe)).toThrow(/at most 65,534 hosts/);
  // Loopback addresses pass only with the switch, which every role of ours is given beside the file.
  expect(directCrawlArgs("/x/hosts")).toEqual(["--hosts-file", "/x/hosts", "--allow-private-addresses"]);
});
