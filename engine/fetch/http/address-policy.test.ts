import { expect, test } from "bun:test";
import { classifyAddress, refusalReason } from "./address-policy.ts";

const cases: Array<[string, string | undefined]> = [
  ["93.184.216.34", undefined],
  ["8.8.8.8", undefined],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", undefined],
  ["192.168.1.1", "private"],
  ["169.254.1.1", "link-local"],
  ["169.254.169.254", "metadata"],
  ["100.64.0.1", "shared-cgnat"],
  ["100.127.255.255", "shared-cgnat"],
  ["100.128.0.1", undefined],
  ["0.0.0.0", "this-network"],
  ["0.1.2.3", "this-network"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["2606:4700::6810:85e5", undefined],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:93.184.216.34", undefined],
  ["::127.0.0.1", "loopback"],
  ["64:ff9b::192.168.0.1", "private"],
  ["64:ff9b::8.8.8.8", undefined],
  ["2002:7f00:1::", "loopback"],
  ["2002:5db8:d822::1", undefined],
  ["100::1", "discard-only"],
  ["not-an-ip", "invalid"],
];

test.each(cases)("address policy - classifies %s as %p", (ip, expected) => {
  expect(classifyAddress(ip)).toBe(expected as never);
});

test("address policy - refuses private ranges unless they are allowed", () => {
  expect(refusalReason("10.0.0.1", false)).toBe("private");
  expect(refusalReason("10.0.0.1", true)).toBeUndefined();
  expect(refusalReason("::1", true)).toBeUndefined();
});

test("address policy - refuses metadata addresses even when private ones are allowed", () => {
  expect(refusalReason("169.254.169.254", true)).toBe("metadata");
  expect(refusalReason("fd00:ec2::254", true)).toBe("metadata");
  expect(refusalReason("::ffff:169.254.169.254", true)).toBe("metadata");
});

test("address policy - allows public addresses either way", () => {
  expect(refusalReason("93.184.216.34", false)).toBeUndefined();
  expect(refusalReason("2606:4700::6810:85e5", false)).toBeUndefined();
});
