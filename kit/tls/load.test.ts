import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkSecuritySettings,
  createAuthority,
  issueNodeCertificate,
  loadGrpcTls,
  loadHttpTls,
  loadNatsAccess,
  loadRedisCa,
} from "./index.ts";

let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
let ca: string;
let otherCa: string;
let frontier: { cert: string; key: string };
let foreign: { cert: string; key: string };
let fetchNode: { cert: string; key: string };
let plain: { cert: string; key: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tls-load-"));
  const authority = await createAuthority();
  const other = await createAuthority();
  ca = file("ca.pem", authority.certificatePem);
  otherCa = file("other-ca.pem", other.certificatePem);
  const f = await issueNodeCertificate(authority, { identity: { role: "frontier", id: "f1" }, hosts: ["127.0.0.1"] });
  frontier = { cert: file("f1.pem", f.certificatePem), key: file("f1.key", f.keyPem) };
  const x = await issueNodeCertificate(other, { identity: { role: "frontier", id: "f1" }, hosts: ["127.0.0.1"] });
  foreign = { cert: file("x.pem", x.certificatePem), key: file("x.key", x.keyPem) };
  const fe = await issueNodeCertificate(authority, { identity: { role: "fetch", id: "fetch-1" }, hosts: ["127.0.0.1"] });
  fetchNode = { cert: file("fetch.pem", fe.certificatePem), key: file("fetch.key", fe.keyPem) };
  plain = { cert: file("ca-as-cert.pem", authority.certificatePem), key: file("ca.key", authority.keyPem) };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const grpc = (cert: string, key: string, caFile = ca) => ({ grpcTlsCaFile: caFile, grpcTlsCertFile: cert, grpcTlsKeyFile: key });

test("tls files - a node's gRPC files are read and its identity taken from its certificate", () => {
  const m = loadGrpcTls(grpc(frontier.cert, frontier.key), "frontier");
  expect(m?.identity).toEqual({ role: "frontier", id: "f1" });
  expect(m?.cert).toContain("BEGIN CERTIFICATE");
  expect(loadGrpcTls({ grpcTlsCaFile: "", grpcTlsCertFile: "", grpcTlsKeyFile: "" }, "frontier")).toBeUndefined();
});

test("tls files - each wrong gRPC file stops the start with a line naming the file and the fault", () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    [
      "missing file",
      () => loadGrpcTls(grpc(join(dir, "nope.pem"), frontier.key), "frontier"),
      /cannot read CRAWL_GRPC_TLS_CERT_FILE .*nope\.pem \(ENOENT\)/,
    ],
    ["not PEM", () => loadGrpcTls(grpc(file("junk.pem", "hello"), frontier.key), "frontier"), /junk\.pem is not a PEM file/],
    [
      "another CA",
      () => loadGrpcTls(grpc(foreign.cert, foreign.key), "frontier"),
      /x\.pem is not signed by the CA in CRAWL_GRPC_TLS_CA_FILE .*ca\.pem; peers would refuse it/,
    ],
    [
      "wrong key",
      () => loadGrpcTls(grpc(frontier.cert, fetchNode.key), "frontier"),
      /fetch\.key is not the private key of CRAWL_GRPC_TLS_CERT_FILE .*f1\.pem/,
    ],
    [
      "another role",
      () => loadGrpcTls(grpc(fetchNode.cert, fetchNode.key), "frontier"),
      /is the certificate of a fetch \(crawler:\/\/fetch\/fetch-1\), not of a frontier/,
    ],
    [
      "no identity",
      () => loadGrpcTls(grpc(plain.cert, plain.key), "frontier"),
      /names no node identity .*crawlctl certs node --role frontier/,
    ],
    [
      "CA file is a node certificate",
      () => loadGrpcTls(grpc(frontier.cert, frontier.key, frontier.cert), "frontier"),
      /holds no CA certificate/,
    ],
  ];
  for (const [name, run, message] of cases) {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect({ name, message: (error as Error | undefined)?.message }).toEqual({ name, message: expect.stringMatching(message) });
  }
});

test("tls files - a CA file holding the old and the new CA accepts certificates of either", async () => {
  const bundle = file("bundle.pem", `${await Bun.file(otherCa).text()}${await Bun.file(ca).text()}`);
  expect(loadGrpcTls(grpc(frontier.cert, frontier.key, bundle), "frontier")?.identity.id).toBe("f1");
  expect(loadGrpcTls(grpc(foreign.cert, foreign.key, bundle), "frontier")?.identity.id).toBe("f1");
});

test("tls files - an expired certificate is refused with its end date", async () => {
  const authority = await createAuthority({ now: new Date("2020-01-01T00:00:00Z") });
  const old = await issueNodeCertificate(authority, {
    identity: { role: "frontier", id: "f9" },
    hosts: ["127.0.0.1"],
    now: new Date("2020-01-01T00:00:00Z"),
    validDays: 1,
  });
  const caFile = file("old-ca.pem", authority.certificatePem);
  expect(() => loadGrpcTls(grpc(file("old.pem", old.certificatePem), file("old.key", old.keyPem), caFile), "frontier")).toThrow(
    /old\.pem expired at 2020-01-02T00:00:00\.000Z/,
  );
  expect(() => loadHttpTls({ httpTlsCertFile: join(dir, "old.pem"), httpTlsKeyFile: join(dir, "old.key") })).toThrow(/expired/);
});

test("tls files - HTTPS, NATS and Redis files", () => {
  expect(loadHttpTls({ httpTlsCertFile: frontier.cert, httpTlsKeyFile: frontier.key })?.key).toContain("PRIVATE KEY");
  expect(() => loadHttpTls({ httpTlsCertFile: frontier.cert, httpTlsKeyFile: fetchNode.key })).toThrow(/not the private key/);
  expect(loadNatsAccess({ natsUser: "fetch", natsPassword: "pw", natsTlsCaFile: ca })).toEqual({
    user: "fetch",
    password: "pw",
    caPem: expect.stringContaining("BEGIN CERTIFICATE"),
  });
  expect(loadNatsAccess({ natsUser: "", natsPassword: "", natsTlsCaFile: "" })).toEqual({});
  expect(() => loadNatsAccess({ natsUser: "", natsPassword: "", natsTlsCaFile: frontier.key })).toThrow(
    /holds no "BEGIN CERTIFICATE" block/,
  );
  expect(loadRedisCa({ redisTlsCaFile: ca })).toContain("BEGIN CERTIFICATE");
  expect(loadRedisCa({ redisTlsCaFile: "" })).toBeUndefined();
});

test("tls settings - settings that go together are reported when one comes alone", () => {
  expect(checkSecuritySettings({ natsUser: "fetch", natsPassword: "" })).toEqual([
    expect.stringContaining("--nats-user and --nats-password"),
  ]);
  expect(checkSecuritySettings({ redisTlsCaFile: "/ca.pem" }, "redis://h:1")).toEqual([expect.stringContaining("needs a rediss://")]);
  expect(checkSecuritySettings({ redisTlsCaFile: "/ca.pem" }, "rediss://u:p@h:1")).toEqual([]);
  expect(checkSecuritySettings({ grpcTlsCaFile: "/ca.pem", grpcTlsCertFile: "", grpcTlsKeyFile: "" })).toEqual([
    expect.stringContaining("all three of --grpc-tls-ca-file"),
  ]);
  expect(checkSecuritySettings({ httpTlsCertFile: "/c.pem", httpTlsKeyFile: "" })).toEqual([expect.stringContaining("go together")]);
  expect(checkSecuritySettings({ natsUser: "", natsPassword: "", grpcTlsCaFile: "", grpcTlsCertFile: "", grpcTlsKeyFile: "" })).toEqual([]);
});
