/**
 * Reads the TLS files a role was given and checks them before anything listens or connects, so a wrong
 * file stops the process at start with one line that names the file and what is wrong with it (exit 1)
 * instead of surfacing later as a handshake failure on another machine: a file that cannot be read or is
 * not PEM, a certificate not signed by the given CA, expired or not yet valid, a key that is not the
 * certificate's, a node certificate that names another role than the process's own. What is read is
 * handed to the adapters as PEM text. Files are read once, at start: a renewed certificate takes a
 * restart.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { identityOfAltNames, type IdentityRole, type NodeIdentity } from "../../core/auth/index.ts";
import type { GrpcTlsSettings, HttpTlsSettings, NatsAccessSettings, RedisTlsSettings } from "./settings.ts";

/** The gRPC material of a node: the CA, its certificate and key, and the identity the certificate names. */
export interface GrpcTlsMaterial {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly identity: NodeIdentity;
}

/** A certificate and key for an HTTPS listener. */
export interface HttpTlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/** A role's NATS access: user and password, and the CA of the servers (TLS on). */
export interface NatsAccess {
  readonly user?: string;
  readonly password?: string;
  readonly caPem?: string;
}

/** Reads `path`, the value of `setting`; the error names both. */
export function readPemFile(setting: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new Error(`cannot read ${setting} ${path}${code ? ` (${code})` : ""}`, { cause: error });
  }
  if (!text.includes("-----BEGIN ")) throw new Error(`${setting} ${path} is not a PEM file (no "-----BEGIN" line)`);
  return text;
}

function certificate(setting: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new Error(`${setting} ${path} holds no readable certificate: ${(error as Error).message}`, { cause: error });
  }
}

/** Every certificate of a PEM bundle, in order. */
function bundle(setting: string, path: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${setting} ${path} holds no "BEGIN CERTIFICATE" block`);
  return blocks.map((block) => certificate(setting, path, block));
}

function checkValidity(setting: string, path: string, cert: X509Certificate, now: Date): void {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  if (now < from) throw new Error(`${setting} ${path} is not valid before ${from.toISOString()} (check this machine's clock)`);
  if (now > to) throw new Error(`${setting} ${path} expired at ${to.toISOString()}; issue a new one (crawlctl certs node)`);
}

function checkKey(certSetting: string, certPath: string, cert: X509Certificate, keySetting: string, keyPath: string, keyPem: string): void {
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch (error) {
    throw new Error(`${keySetting} ${keyPath} holds no readable private key: ${(error as Error).message}`, { cause: error });
  }
  if (!matches) throw new Error(`${keySetting} ${keyPath} is not the private key of ${certSetting} ${certPath}`);
}

/**
 * The gRPC files of a node whose role is `role`, checked; undefined when gRPC TLS is off (no files). The
 * settings have passed `checkSecuritySettings` (all three or none).
 */
export function loadGrpcTls(s: GrpcTlsSettings, role: IdentityRole, now = new Date()): GrpcTlsMaterial | undefined {
  if (!s.grpcTlsCertFile) return undefined;
  const caPem = readPemFile("CRAWL_GRPC_TLS_CA_FILE", s.grpcTlsCaFile);
  const certPem = readPemFile("CRAWL_GRPC_TLS_CERT_FILE", s.grpcTlsCertFile);
  const keyPem = readPemFile("CRAWL_GRPC_TLS_KEY_FILE", s.grpcTlsKeyFile);
  // A CA file may hold several CAs (the old and the new one while the CA itself is replaced).
  const cas = bundle("CRAWL_GRPC_TLS_CA_FILE", s.grpcTlsCaFile, caPem);
  if (!cas.some((ca) => ca.ca))
    throw new Error(`CRAWL_GRPC_TLS_CA_FILE ${s.grpcTlsCaFile} holds no CA certificate (basicConstraints CA:TRUE)`);
  const cert = certificate("CRAWL_GRPC_TLS_CERT_FILE", s.grpcTlsCertFile, certPem);
  if (!cas.some((ca) => ca.ca && cert.checkIssued(ca) && cert.verify(ca.publicKey)))
    throw new Error(
      `CRAWL_GRPC_TLS_CERT_FILE ${s.grpcTlsCertFile} is not signed by the CA in CRAWL_GRPC_TLS_CA_FILE ${s.grpcTlsCaFile}; peers would refuse it`,
    );
  checkValidity("CRAWL_GRPC_TLS_CERT_FILE", s.grpcTlsCertFile, cert, now);
  checkKey("CRAWL_GRPC_TLS_CERT_FILE", s.grpcTlsCertFile, cert, "CRAWL_GRPC_TLS_KEY_FILE", s.grpcTlsKeyFile, keyPem);
  const identity = identityOfAltNames(cert.subjectAltName);
  if (!identity)
    throw new Error(
      `CRAWL_GRPC_TLS_CERT_FILE ${s.grpcTlsCertFile} names no node identity (one subjectAltName URI crawler://${role}/<node id>); make it with crawlctl certs node --role ${role}`,
    );
  if (identity.role !== role)
    throw new Error(
      `CRAWL_GRPC_TLS_CERT_FILE ${s.grpcTlsCertFile} is the certificate of a ${identity.role} (crawler://${identity.role}/${identity.id}), not of a ${role}`,
    );
  return { ca: caPem, cert: certPem, key: keyPem, identity };
}

/** The HTTPS certificate and key, checked against each other; undefined when HTTP TLS is off. */
export function loadHttpTls(s: HttpTlsSettings, now = new Date()): HttpTlsMaterial | undefined {
  if (!s.httpTlsCertFile) return undefined;
  const certPem = readPemFile("CRAWL_HTTP_TLS_CERT_FILE", s.httpTlsCertFile);
  const keyPem = readPemFile("CRAWL_HTTP_TLS_KEY_FILE", s.httpTlsKeyFile);
  const cert = certificate("CRAWL_HTTP_TLS_CERT_FILE", s.httpTlsCertFile, certPem);
  checkValidity("CRAWL_HTTP_TLS_CERT_FILE", s.httpTlsCertFile, cert, now);
  checkKey("CRAWL_HTTP_TLS_CERT_FILE", s.httpTlsCertFile, cert, "CRAWL_HTTP_TLS_KEY_FILE", s.httpTlsKeyFile, keyPem);
  return { cert: certPem, key: keyPem };
}

/** The NATS user, password and CA as the NATS adapter takes them. */
export function loadNatsAccess(s: NatsAccessSettings): NatsAccess {
  const caPem = s.natsTlsCaFile ? readPemFile("CRAWL_NATS_TLS_CA_FILE", s.natsTlsCaFile) : undefined;
  if (caPem) bundle("CRAWL_NATS_TLS_CA_FILE", s.natsTlsCaFile, caPem);
  return { ...(s.natsUser ? { user: s.natsUser, password: s.natsPassword } : {}), ...(caPem ? { caPem } : {}) };
}

/** The CA of the Redis server, or undefined (off, or the system's CAs). */
export function loadRedisCa(s: RedisTlsSettings): string | undefined {
  if (!s.redisTlsCaFile) return undefined;
  const caPem = readPemFile("CRAWL_REDIS_TLS_CA_FILE", s.redisTlsCaFile);
  bundle("CRAWL_REDIS_TLS_CA_FILE", s.redisTlsCaFile, caPem);
  return caPem;
}

/** What a process's links run on, for its start-up log line (never a secret). */
export function describeSecurity(s: {
  nats: NatsAccess;
  grpc?: GrpcTlsMaterial | undefined;
  http?: HttpTlsMaterial | undefined;
  redis?: { url: string; caPem: string | undefined };
}): Record<string, string> {
  return {
    nats: `${s.nats.caPem ? "TLS" : "plain"}, ${s.nats.user ? `user ${s.nats.user}` : "no user"}`,
    ...("grpc" in s ? { grpc: s.grpc ? `TLS, certificate of crawler://${s.grpc.identity.role}/${s.grpc.identity.id}` : "plain" } : {}),
    http: s.http ? "HTTPS" : "plain HTTP",
    ...(s.redis ? { redis: s.redis.url.startsWith("rediss:") ? `TLS${s.redis.caPem ? " (given CA)" : ""}` : "plain" } : {}),
  };
}
