/**
 * `crawlctl certs init` and `certs node` through a fake io: the files they write (checked as certificates),
 * what they print, and the usage errors.
 */
import { afterAll, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError, type CliIo } from "../io.ts";
import { certsInitCommand, certsNodeCommand } from "./certs.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "certs-cmd-"));
  dirs.push(d);
  return d;
}

function fakeIo(): CliIo & { outs: string[] } {
  const outs: string[] = [];
  return { outs, out: (t) => void outs.push(t), err: () => {}, readText: async () => "" };
}

const usageError = (p: Promise<unknown>) =>
  p.then(
    () => "no error",
    (e: unknown) => (e instanceof UsageError ? e.message : `not a usage error: ${String(e)}`),
  );

test("certs - init makes a CA, node makes a certificate it signed naming the role, id and hosts", async () => {
  const dir = join(tempDir(), "pki");
  const io = fakeIo();
  expect(await certsInitCommand({})(["--dir", dir], io)).toBe(0);
  expect(io.outs.join("")).toContain(`wrote ${dir}/ca.pem and ${dir}/ca.key`);
  expect(await certsNodeCommand({})(["--dir", dir, "--role", "frontier", "--id", "f1", "--hosts", "10.0.0.7,f1.crawl.internal"], io)).toBe(
    0,
  );
  expect(io.outs.at(-1)).toBe(
    `wrote ${dir}/f1.pem and ${dir}/f1.key (crawler://frontier/f1; 10.0.0.7, f1.crawl.internal)\n` +
      `  CRAWL_GRPC_TLS_CA_FILE=${dir}/ca.pem CRAWL_GRPC_TLS_CERT_FILE=${dir}/f1.pem CRAWL_GRPC_TLS_KEY_FILE=${dir}/f1.key\n` +
      `  HTTPS listener: CRAWL_HTTP_TLS_CERT_FILE=${dir}/f1.pem CRAWL_HTTP_TLS_KEY_FILE=${dir}/f1.key\n`,
  );
  const ca = new X509Certificate(readFileSync(join(dir, "ca.pem")));
  const cert = new X509Certificate(readFileSync(join(dir, "f1.pem")));
  expect(cert.verify(ca.publicKey)).toBe(true);
  expect(cert.subjectAltName).toBe("IP Address:10.0.0.7, DNS:f1.crawl.internal, URI:crawler://frontier/f1");
  expect(statSync(join(dir, "f1.key")).mode & 0o777).toBe(0o600);
  // --days, and CRAWLCTL_CERTS_DIR in place of --dir.
  expect(await certsNodeCommand({ CRAWLCTL_CERTS_DIR: dir })(["--role", "fetch", "--id", "fetch-1", "--days", "2"], io)).toBe(0);
  const short = new X509Certificate(readFileSync(join(dir, "fetch-1.pem")));
  expect(new Date(short.validTo).getTime() - Date.now()).toBeLessThan(2 * 86_400_000 + 60_000);
  expect(short.subjectAltName).toBe("IP Address:127.0.0.1, DNS:localhost, URI:crawler://fetch/fetch-1");
});

test("certs - mistakes are usage errors that say what to give; an existing CA is kept", async () => {
  const dir = tempDir();
  const io = fakeIo();
  expect(await usageError(certsInitCommand({})([], io))).toContain("give --dir DIR");
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--role", "frontier", "--id", "f1"], io))).toContain("holds no CA");
  await certsInitCommand({})(["--dir", dir], io);
  await expect(certsInitCommand({})(["--dir", dir], io)).rejects.toThrow(/already holds a CA/);
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--role", "admin", "--id", "x"], io))).toContain("--role must be one of");
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--role", "fetch"], io))).toContain("give --id");
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--role", "fetch", "--id", "Bad_Id"], io))).toContain("node id");
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--role", "fetch", "--id", "x", "--hosts", "no such host"], io))).toContain(
    "neither a host name nor an IP address",
  );
  expect(await usageError(certsNodeCommand({})(["--dir", dir, "--bogus"], io))).toContain("unknown option --bogus");
});
