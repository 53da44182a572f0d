/**
 * A private certificate authority for a test or a small fleet, in plain JavaScript over WebCrypto (no
 * openssl, no native module; Bun and Deno alike): `createAuthority` makes a self-signed CA,
 * `issueNodeCertificate` a node certificate signed by it. Keys are EC P-256, signatures ECDSA with
 * SHA-256, keys written as PKCS#8 PEM and certificates as PEM, which grpc-js, node:tls, nats-server and
 * redis-server all read. A node certificate serves both ends of a TLS link (serverAuth and clientAuth),
 * carries the host names and IP addresses it is reached at, and names the node's role and id in one
 * subjectAltName URI (core/auth `identityUri`), which a frontier node checks before it answers.
 *
 * Hand-written DER (der.ts) rather than a library: @peculiar/x509 does the same over WebCrypto but needs
 * the global `reflect-metadata` polyfill at import and brings 20 packages; node-forge cannot sign with EC
 * keys. The certificates are checked by `openssl verify` and by real TLS handshakes in the tests.
 */
import { identityUri, type NodeIdentity } from "../../core/auth/index.ts";
import { formatIp, parseIp } from "../../core/net/index.ts";
import {
  bitString,
  boolean,
  children,
  explicit,
  implicit,
  octetString,
  oid,
  readElement,
  sequence,
  set,
  smallInteger,
  tlv,
  time,
  unsignedInteger,
  utf8String,
  TAG,
} from "./der.ts";

/** A certificate and its private key, both PEM. */
export interface CertificateAndKey {
  readonly certificatePem: string;
  readonly keyPem: string;
}

export interface AuthorityOptions {
  /** The CA's common name (default `crawler private CA`). */
  commonName?: string;
  /** Default 3650 (ten years: a private CA is replaced on purpose, not by expiry). */
  validDays?: number;
  now?: Date;
}

export interface NodeCertificateOptions {
  identity: NodeIdentity;
  /** Names and IP addresses the node is reached at (subjectAltName DNS and IP entries); at least one. */
  hosts: readonly string[];
  /** Default 825 days. */
  validDays?: number;
  now?: Date;
}

const EC = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;
/** Certificates start a little in the past, so a peer whose clock runs behind accepts them at once. */
const BACKDATE_MS = 5 * 60_000;

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** A self-signed CA certificate (basicConstraints CA, path length 0: it signs node certificates only). */
export async function createAuthority(opts: AuthorityOptions = {}): Promise<CertificateAndKey> {
  const keys = (await crypto.subtle.generateKey(EC, true, ["sign", "verify"])) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey));
  const name = distinguishedName([
    [OID.organization, "crawler"],
    [OID.commonName, opts.commonName ?? "crawler private CA"],
  ]);
  const keyId = await keyIdentifier(spki);
  const certificate = await signCertificate({
    issuer: name,
    subject: name,
    spki,
    signingKey: keys.privateKey,
    ...validity(opts.now, opts.validDays ?? 3650),
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true), smallInteger(0))),
      extension(OID.keyUsage, true, keyUsage(0x06, 1)), // keyCertSign, cRLSign
      extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
    ],
  });
  return { certificatePem: pem("CERTIFICATE", certificate), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A node certificate for `identity`, reached at `hosts`, signed by `authority`. */
export async function issueNodeCertificate(authority: CertificateAndKey, opts: NodeCertificateOptions): Promise<CertificateAndKey> {
  if (opts.hosts.length === 0) throw new Error("a node certificate needs at least one host name or IP address");
  const ca = readAuthority(authority.certificatePem);
  const signingKey = await importPrivateKey(authority.keyPem);
  const keys = (await crypto.subtle.generateKey(EC, true, ["sign", "verify"])) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey));
  const uri = identityUri(opts.identity);
  const certificate = await signCertificate({
    issuer: ca.subject,
    subject: distinguishedName([
      [OID.organization, "crawler"],
      [OID.organizationalUnit, opts.identity.role],
      [OID.commonName, `${opts.identity.role} ${opts.identity.id}`],
    ]),
    spki,
    signingKey,
    ...validity(opts.now, opts.validDays ?? 825),
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, keyUsage(0x80, 7)), // digitalSignature
      extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
      extension(OID.subjectAltName, false, sequence(...opts.hosts.map(generalName), implicit(6, new TextEncoder().encode(uri)))),
      extension(OID.subjectKeyIdentifier, false, octetString(await keyIdentifier(spki))),
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, await keyIdentifier(ca.spki)))),
    ],
  });
  return { certificatePem: pem("CERTIFICATE", certificate), keyPem: await privateKeyPem(keys.privateKey) };
}

interface ToBeSigned {
  issuer: Uint8Array;
  subject: Uint8Array;
  spki: Uint8Array;
  signingKey: CryptoKey;
  notBefore: Date;
  notAfter: Date;
  extensions: Uint8Array[];
}

async function signCertificate(c: ToBeSigned): Promise<Uint8Array> {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = serial[0]! & 0x7f; // positive, at most 20 octets (RFC 5280, 4.1.2.2)
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    c.issuer,
    sequence(time(c.notBefore), time(c.notAfter)),
    c.subject,
    c.spki,
    explicit(3, sequence(...c.extensions)),
  );
  const raw = new Uint8Array(await crypto.subtle.sign(SIGN, c.signingKey, tbs));
  // WebCrypto gives r || s; X.509 wants SEQUENCE { INTEGER r, INTEGER s }.
  const signature = sequence(unsignedInteger(raw.subarray(0, 32)), unsignedInteger(raw.subarray(32)));
  return sequence(tbs, algorithm, bitString(signature));
}

function validity(now: Date | undefined, days: number): { notBefore: Date; notAfter: Date } {
  if (!Number.isInteger(days) || days < 1) throw new Error(`validity must be a whole number of days, at least 1, got ${days}`);
  const at = (now ?? new Date()).getTime();
  return { notBefore: new Date(at - BACKDATE_MS), notAfter: new Date(at + days * DAY_MS) };
}

function distinguishedName(attributes: Array<[string, string]>): Uint8Array {
  return sequence(...attributes.map(([type, value]) => set(sequence(oid(type), utf8String(value)))));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

/** A KeyUsage BIT STRING of one byte whose last `unused` bits are zero (DER drops trailing zero bits). */
function keyUsage(bits: number, unused: number): Uint8Array {
  return tlv(TAG.bitString, Uint8Array.of(unused, bits));
}

/** A subjectAltName entry: an IP address (canonical text only) or a DNS name. */
function generalName(host: string): Uint8Array {
  const ip = parseIp(host);
  if (ip) {
    if (formatIp(ip) !== host.replace(/^\[|\]$/g, "")) throw new Error(`write the IP address ${host} in its usual form (${formatIp(ip)})`);
    if (ip.family === 4)
      return implicit(7, Uint8Array.of(ip.value >>> 24, (ip.value >>> 16) & 0xff, (ip.value >>> 8) & 0xff, ip.value & 0xff));
    return implicit(7, Uint8Array.from(ip.groups.flatMap((g) => [g >> 8, g & 0xff])));
  }
  if (!/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(host))
    throw new Error(`"${host}" is neither a host name nor an IP address`);
  return implicit(2, new TextEncoder().encode(host.toLowerCase()));
}

/** RFC 5280's method 1: SHA-1 of the subjectPublicKey bits. */
async function keyIdentifier(spki: Uint8Array): Promise<Uint8Array> {
  const [, key] = children(readElement(spki));
  return new Uint8Array(await crypto.subtle.digest("SHA-1", key!.contents.slice(1)));
}

/** The subject and public key of a CA certificate, to issue under it. */
function readAuthority(certificatePem: string): { subject: Uint8Array; spki: Uint8Array } {
  const der = pemBody(certificatePem, "CERTIFICATE");
  try {
    const [tbs] = children(readElement(der));
    const fields = children(tbs!);
    const at = fields[0]?.tag === 0xa0 ? 1 : 0; // the version is optional (v1 has none)
    const subject = fields[at + 4];
    const spki = fields[at + 5];
    if (subject?.tag !== TAG.sequence || spki?.tag !== TAG.sequence) throw new Error("unexpected structure");
    return { subject: subject.raw, spki: spki.raw };
  } catch (error) {
    throw new Error(`the CA certificate is not a readable X.509 certificate: ${(error as Error).message}`);
  }
}

async function importPrivateKey(keyPem: string): Promise<CryptoKey> {
  try {
    return await crypto.subtle.importKey("pkcs8", pemBody(keyPem, "PRIVATE KEY"), EC, false, ["sign"]);
  } catch (error) {
    throw new Error(`the CA key is not an EC P-256 key in PKCS#8 PEM ("BEGIN PRIVATE KEY"): ${(error as Error).message}`);
  }
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return pem("PRIVATE KEY", new Uint8Array(await crypto.subtle.exportKey("pkcs8", key)));
}

export function pem(label: string, der: Uint8Array): string {
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  const lines = btoa(bin).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** The DER of the first PEM block labelled `label`; throws when there is none. */
export function pemBody(text: string, label: string): Uint8Array<ArrayBuffer> {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text);
  if (!match) throw new Error(`no "BEGIN ${label}" block`);
  const bin = atob(match[1]!.replace(/\s+/g, ""));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
