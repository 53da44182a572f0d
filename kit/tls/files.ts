/**
 * A private CA and its node certificates as files in one directory, the layout `crawlctl certs` and
 * `cluster up --secure` write and the fleet's secret store holds (deploy/terraform: <prefix>/ca.pem,
 * <prefix>/<identity>.pem, <prefix>/<identity>.key):
 *
 *   DIR/ca.pem  DIR/ca.key         the CA (keep ca.key off the nodes: it signs new identities)
 *   DIR/<id>.pem  DIR/<id>.key     one node's certificate and key
 *
 * Keys are written with mode 0600. An existing CA is never overwritten: replacing it would orphan every
 * certificate it signed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NodeIdentity } from "../../core/auth/index.ts";
import { createAuthority, issueNodeCertificate, type CertificateAndKey } from "./x509.ts";

export interface AuthorityFiles {
  readonly caFile: string;
  readonly keyFile: string;
}

export interface NodeFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export function authorityFiles(dir: string): AuthorityFiles {
  return { caFile: join(dir, "ca.pem"), keyFile: join(dir, "ca.key") };
}

/** Makes DIR/ca.pem and DIR/ca.key; fails when DIR already holds a CA. */
export async function initAuthority(dir: string, opts: { commonName?: string; validDays?: number } = {}): Promise<AuthorityFiles> {
  const files = authorityFiles(dir);
  if (existsSync(files.caFile) || existsSync(files.keyFile))
    throw new Error(`${dir} already holds a CA (${files.caFile}); it is kept, since replacing it would orphan every certificate it signed`);
  mkdirSync(dir, { recursive: true });
  const ca = await createAuthority(opts);
  writeSecret(files.keyFile, ca.keyPem);
  writeFileSync(files.caFile, ca.certificatePem);
  return files;
}

/** Reads the CA of DIR, made by `initAuthority`. */
export function readAuthority(dir: string): CertificateAndKey {
  const files = authorityFiles(dir);
  if (!existsSync(files.caFile) || !existsSync(files.keyFile))
    throw new Error(`${dir} holds no CA (ca.pem and ca.key); make one with crawlctl certs init --dir ${dir}`);
  return { certificatePem: readFileSync(files.caFile, "utf8"), keyPem: readFileSync(files.keyFile, "utf8") };
}

/** Issues DIR/<id>.pem and DIR/<id>.key for `identity`, reached at `hosts`, signed by the CA of DIR. */
export async function issueNodeFiles(
  dir: string,
  opts: { identity: NodeIdentity; hosts: readonly string[]; validDays?: number },
): Promise<NodeFiles> {
  const issued = await issueNodeCertificate(readAuthority(dir), opts);
  const certFile = join(dir, `${opts.identity.id}.pem`);
  const keyFile = join(dir, `${opts.identity.id}.key`);
  writeSecret(keyFile, issued.keyPem);
  writeFileSync(certFile, issued.certificatePem);
  return { caFile: authorityFiles(dir).caFile, certFile, keyFile };
}

function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode through writeFileSync
}
