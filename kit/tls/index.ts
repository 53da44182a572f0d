/**
 * TLS for every process: the security settings (config rows with the env vars the fleet renders), the
 * reading and checking of the TLS files at start, and a private CA that makes node certificates in plain
 * JavaScript (for `crawlctl certs`, `cluster up --secure` and tests). The adapters take the PEM text this
 * module reads; the identity format and the roles a frontier node answers are core/auth's.
 */
export {
  checkSecuritySettings,
  GRPC_TLS_SETTINGS,
  HTTP_TLS_SETTINGS,
  NATS_ACCESS_SETTINGS,
  REDIS_TLS_SETTINGS,
  type GrpcTlsSettings,
  type HttpTlsSettings,
  type NatsAccessSettings,
  type RedisTlsSettings,
} from "./settings.ts";
export {
  describeSecurity,
  loadGrpcTls,
  loadHttpTls,
  loadNatsAccess,
  loadRedisCa,
  readPemFile,
  type GrpcTlsMaterial,
  type HttpTlsMaterial,
  type NatsAccess,
} from "./load.ts";
export {
  createAuthority,
  issueNodeCertificate,
  type AuthorityOptions,
  type CertificateAndKey,
  type NodeCertificateOptions,
} from "./x509.ts";
export { authorityFiles, initAuthority, issueNodeFiles, readAuthority, type AuthorityFiles, type NodeFiles } from "./files.ts";
