import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type TLSSocket } from "node:tls";
import { createAuthority, initAuthority, issueNodeCertificate, issueNodeFiles } from "./index.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "x509-test-"));
  dirs.push(d);
  return d;
}

test("x509 - a node certificate is signed by its CA, names its hosts and identity, and its key is its own", async () => {
  const ca = await createAuthority({ commonName: "test CA" });
  const node = await issueNodeCertificate(ca, {
    identity: { role: "frontier", id: "f1" },
    hosts: ["127.0.0.1", "localhost", "::1", "f1.crawl.internal"],
  });
  const caCert = new X509Certificate(ca.certificatePem);
  const cert = new X509Certificate(node.certificatePem);
  expect(caCert.ca).toBe(true);
  expect(cert.ca).toBe(false);
  expect(cert.checkIssued(caCert)).toBe(true);
  expect(cert.verify(caCert.publicKey)).toBe(true);
  expect(cert.checkPrivateKey(createPrivateKey(node.keyPem))).toBe(true);
  expect(cert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(false);
  expect(cert.subjectAltName?.split(", ")).toEqual([
    "IP Address:127.0.0.1",
    "DNS:localhost",
    expect.stringMatching(/^IP Address:(::1|0:0:0:0:0:0:0:1)$/),
    "DNS:f1.crawl.internal",
    "URI:crawler://frontier/f1",
  ]);
  expect(cert.checkHost("f1.crawl.internal")).toBe("f1.crawl.internal");
  expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
  expect(cert.checkIP("127.0.0.2")).toBeUndefined();
  // Another CA's key does not verify it.
  const other = new X509Certificate((await createAuthority()).certificatePem);
  expect(cert.verify(other.publicKey)).toBe(false);
});

test("x509 - openssl accepts the chain and the EC P-256 key", async () => {
  const dir = tempDir();
  await initAuthority(dir);
  const files = await issueNodeFiles(dir, { identity: { role: "fetch", id: "fetch-1" }, hosts: ["127.0.0.1"] });
  const verify = spawnSync("openssl", ["verify", "-CAfile", files.caFile, files.certFile], { encoding: "utf8" });
  expect({ code: verify.status, out: verify.stdout.trim() }).toEqual({ code: 0, out: `${files.certFile}: OK` });
  const key = spawnSync("openssl", ["ec", "-in", files.keyFile, "-check", "-noout"], { encoding: "utf8" });
  expect(key.stderr).toContain("EC Key valid");
  const text = spawnSync("openssl", ["x509", "-in", files.certFile, "-noout", "-text"], { encoding: "utf8" }).stdout;
  expect(text).toContain("TLS Web Server Authentication, TLS Web Client Authentication");
  expect(text).toContain("NIST CURVE: P-256");
  expect(statSync(files.keyFile).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, "ca.key")).mode & 0o777).toBe(0o600);
});

test("x509 - a CA directory is never overwritten, and issuing needs one", async () => {
  const dir = tempDir();
  await initAuthority(dir);
  await expect(initAuthority(dir)).rejects.toThrow(/already holds a CA/);
  await expect(issueNodeFiles(tempDir(), { identity: { role: "fetch", id: "x" }, hosts: ["127.0.0.1"] })).rejects.toThrow(/holds no CA/);
});

test("x509 - bad hosts and identities are refused before anything is signed", async () => {
  const ca = await createAuthority();
  const issue = (hosts: string[], id = "n1") => issueNodeCertificate(ca, { identity: { role: "frontier", id }, hosts });
  await expect(issue([])).rejects.toThrow(/at least one host/);
  await expect(issue(["bad host"])).rejects.toThrow(/neither a host name nor an IP address/);
  await expect(issue(["0x7f000001"])).rejects.toThrow(/usual form \(127\.0\.0\.1\)/);
  await expect(issue(["127.0.0.1"], "Not_An_Id")).rejects.toThrow(/node id/);
});

test("x509 - two nodes of one CA complete a mutual TLS handshake, and each sees the other's identity", async () => {
  const ca = await createAuthority();
  const server = await issueNodeCertificate(ca, { identity: { role: "frontier", id: "f1" }, hosts: ["127.0.0.1"] });
  const client = await issueNodeCertificate(ca, { identity: { role: "coordinator", id: "c1" }, hosts: ["127.0.0.1"] });
  let seenByServer = "";
  const srv = createServer(
    { cert: server.certificatePem, key: server.keyPem, ca: ca.certificatePem, requestCert: true, rejectUnauthorized: true },
    (s) => {
      seenByServer = s.getPeerCertificate().subjectaltname ?? "";
      s.end("hello");
    },
  );
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as { port: number }).port;
  try {
    const socket: TLSSocket = connect({
      host: "127.0.0.1",
      port,
      ca: ca.certificatePem,
      cert: client.certificatePem,
      key: client.keyPem,
      servername: "localhost",
      checkServerIdentity: () => undefined,
    });
    let seenByClient = "";
    socket.once("secureConnect", () => (seenByClient = socket.getPeerCertificate().subjectaltname ?? ""));
    const got = await new Promise<string>((resolve, reject) => {
      let data = "";
      socket.on("data", (d) => (data += d.toString()));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(got).toBe("hello");
    expect(seenByClient).toContain("URI:crawler://frontier/f1");
    expect(seenByServer).toContain("URI:crawler://coordinator/c1");
    socket.destroy();
  } finally {
    await new Promise<void>((r) => srv.close(() => r()));
  }
});

test("x509 - a certificate written with the time of a past day has expired", async () => {
  const ca = await createAuthority({ now: new Date("2020-01-01T00:00:00Z"), validDays: 1 });
  const cert = new X509Certificate(ca.certificatePem);
  expect(new Date(cert.validTo).toISOString()).toBe("2020-01-02T00:00:00.000Z");
  // Past 2049 the time is a GeneralizedTime; openssl reads it.
  const far = await createAuthority({ now: new Date("2060-06-01T00:00:00Z"), validDays: 1 });
  const path = join(tempDir(), "far.pem");
  writeFileSync(path, far.certificatePem);
  const text = spawnSync("openssl", ["x509", "-in", path, "-noout", "-enddate"], { encoding: "utf8" }).stdout;
  expect(text.trim()).toBe("notAfter=Jun  2 00:00:00 2060 GMT");
});
