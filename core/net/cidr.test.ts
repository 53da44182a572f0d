import { expect, test } from "bun:test";
import { cidrContains, parseCidr } from "./cidr.ts";
import { parseIp } from "./ip.ts";

const contains = (cidr: string, ip: string) => cidrContains(parseCidr(cidr), parseIp(ip)!);

test("address ranges from the configuration - canonical text, base masked", () => {
  expect(parseCidr("10.1.2.3/16").text).toBe("10.1.0.0/16");
  expect(parseCidr(" 192.0.2.7 ").text).toBe("192.0.2.7/32");
  expect(parseCidr("FD00::1/8").text).toBe("fd00::/8");
  expect(parseCidr("fd00:ec2::254").text).toBe("fd00:ec2::254/128");
  expect(parseCidr("0.0.0.0/0").text).toBe("0.0.0.0/0");
});

test("address ranges from the configuration - refuses what is not a range, naming it", () => {
  for (const bad of ["", "10.0.0.0/33", "::/129", "10.0.0/8", "0x7f.1/8", "2130706433", "example.com", "10.0.0.0/x", "fe80::1%eth0/64"]) {
    expect(() => parseCidr(bad)).toThrow(/address range|prefix length/);
  }
});

test("address ranges from the configuration - match addresses, IPv4 ranges also their IPv6 spellings", () => {
  expect(contains("10.1.0.0/16", "10.1.255.3")).toBe(true);
  expect(contains("10.1.0.0/16", "10.2.0.1")).toBe(false);
  expect(contains("10.1.0.0/16", "::ffff:10.1.0.9")).toBe(true);
  expect(contains("10.1.0.0/16", "2002:0a01:0009::")).toBe(true);
  expect(contains("0.0.0.0/0", "8.8.8.8")).toBe(true);
  expect(contains("fd00::/8", "fd12::1")).toBe(true);
  expect(contains("fd00::/8", "fe80::1")).toBe(false);
  expect(contains("2001:db8:1::/48", "2001:db8:1:ffff::1")).toBe(true);
  expect(contains("2001:db8:1::/48", "2001:db8:2::1")).toBe(false);
  expect(contains("fd00::/8", "10.0.0.1")).toBe(false);
});
