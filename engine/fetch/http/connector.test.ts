import { expect, test } from "bun:test";
import { createSafeConnector, type ConnectOptions, type Connector } from "./connector.ts";
import { DnsCache, type ResolvedAddress } from "./dns-cache.ts";
import { BlockedAddressError } from "./errors.ts";
import { AddressPolicy } from "../../../core/net/index.ts";

const strict = new AddressPolicy();

/** A dial function that records what it was asked to connect to and pretends to succeed. */
function recordingDial(): { dial: Connector; calls: ConnectOptions[] } {
  const calls: ConnectOptions[] = [];
  const dial: Connector = (options, callback) => {
    calls.push(options);
    callback(null, { remoteAddress: options.hostname } as never);
  };
  return { dial, calls };
}

function connect(connector: Connector, options: Partial<ConnectOptions>): Promise<unknown> {
  const full: ConnectOptions = { hostname: "site.test", host: "site.test", protocol: "http:", port: "", ...options };
  return new Promise((resolve, reject) => connector(full, (error, socket) => (error ? reject(error) : resolve(socket))));
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });

test("connector - dials the checked IP, never the name, and sends no servername over http", async () => {
  const { dial, calls } = recordingDial();
  const dns = new DnsCache({ lookup: async () => [v4("93.184.216.34")] });
  await connect(createSafeConnector({ dns, addressPolicy: strict, connectTimeoutMs: 1000, dial }), {});
  expect(calls[0]?.hostname).toBe("93.184.216.34");
  expect(calls[0]?.servername ?? null).toBeNull();
});

test("connector - keeps the name as the TLS servername for https", async () => {
  const { dial, calls } = recordingDial();
  const dns = new DnsCache({ lookup: async () => [v4("93.184.216.34")] });
  await connect(createSafeConnector({ dns, addressPolicy: strict, connectTimeoutMs: 1000, dial }), {
    protocol: "https:",
    host: "site.test",
  });
  expect(calls[0]?.hostname).toBe("93.184.216.34");
  expect(calls[0]?.servername).toBe("site.test");
});

test("connector - skips refused addresses in an answer and dials the first allowed one", async () => {
  const { dial, calls } = recordingDial();
  const dns = new DnsCache({ lookup: async () => [v4("127.0.0.1"), v4("10.0.0.1"), v4("93.184.216.34")] });
  await connect(createSafeConnector({ dns, addressPolicy: strict, connectTimeoutMs: 1000, dial }), {});
  expect(calls.map((c) => c.hostname)).toEqual(["93.184.216.34"]);
});

test("connector - refuses without dialing when every address is refused", async () => {
  const { dial, calls } = recordingDial();
  const dns = new DnsCache({ lookup: async () => [v4("127.0.0.1"), v4("192.168.0.1")] });
  await expect(connect(createSafeConnector({ dns, addressPolicy: strict, connectTimeoutMs: 1000, dial }), {})).rejects.toBeInstanceOf(
    BlockedAddressError,
  );
  expect(calls).toEqual([]);
});

test("connector - judges each new connection by the answer it dials, so a rebinding name is caught", async () => {
  // The name answers public first, then loopback (a DNS-rebinding attack); the cache TTL is 1 ms.
  const answers = [[v4("93.184.216.34")], [v4("127.0.0.1")]];
  let now = 0;
  const dns = new DnsCache({ lookup: async () => answers.shift() ?? [], ttlMs: 1, now: () => now });
  const { dial, calls } = recordingDial();
  const connector = createSafeConnector({ dns, addressPolicy: strict, connectTimeoutMs: 1000, dial });
  await connect(connector, {});
  now = 10;
  await expect(connect(connector, {})).rejects.toBeInstanceOf(BlockedAddressError);
  expect(calls.map((c) => c.hostname)).toEqual(["93.184.216.34"]);
});

test("connector - tells which address each origin connected to", async () => {
  const { dial } = recordingDial();
  const seen: Array<[string, string]> = [];
  const dns = new DnsCache({ lookup: async () => [v4("93.184.216.34")] });
  const connector = createSafeConnector({
    dns,
    addressPolicy: strict,
    connectTimeoutMs: 1000,
    dial,
    onConnected: (o, a) => seen.push([o, a]),
  });
  await connect(connector, { host: "site.test:8080", port: "8080" });
  expect(seen).toEqual([["http://site.test:8080", "93.184.216.34"]]);
});
