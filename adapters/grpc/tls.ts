/**
 * TLS for the cluster's gRPC links, from PEM text (kit/tls reads and checks the files):
 *
 * - A server with `ServerTls` speaks TLS only. With `clientRoles` it also asks every caller for a
 *   certificate signed by the cluster's CA (mutual TLS: a caller without one is refused in the handshake),
 *   and lets only callers whose certificate names one of those roles (core/auth, `crawler://<role>/<id>`)
 *   call its own services; the standard health and reflection services need only the CA's certificate.
 *   That is a frontier node: the coordinator and other frontier nodes may call it, a fetch node may not.
 *   Without `clientRoles` (the coordinator, which crawlctl calls) no client certificate is asked for and
 *   callers prove themselves with the bearer token.
 * - A client with `ClientTls` checks that the server's certificate is signed by the CA and names the
 *   address it dialled (a DNS name or an IP address in its subjectAltName), and presents its own
 *   certificate when it has one.
 */
import {
  credentials,
  Metadata,
  ResponderBuilder,
  ServerCredentials,
  ServerInterceptingCall,
  ServerListenerBuilder,
  status,
  type ChannelCredentials,
  type ChannelOptions,
  type ServerInterceptor,
} from "@grpc/grpc-js";
import { checkServerIdentity } from "node:tls";
import { identityOfAltNames, type IdentityRole } from "../../core/auth/index.ts";
import { parseHostPort, parseIp } from "../../core/net/index.ts";

export interface ServerTls {
  /** PEM of the CA (or CAs) whose certificates callers present. */
  ca: string;
  /** PEM of this server's certificate and its key. */
  cert: string;
  key: string;
  /**
   * Mutual TLS: callers must present a certificate of `ca`, and only those naming one of these roles may
   * call the server's own services (health and reflection stay open to any certificate of `ca`).
   * Absent: no client certificate is asked for.
   */
  clientRoles?: readonly IdentityRole[];
}

export interface ClientTls {
  /** PEM of the CA that signs the servers' certificates. */
  ca: string;
  /** This node's certificate and key (mutual TLS); absent for a client with no identity (crawlctl). */
  cert?: string;
  key?: string;
}

/** A call refused because of who made it: the method, and the identity the certificate named (if any). */
export interface RefusedCall {
  method: string;
  caller: string;
  reason: string;
}

export function serverCredentials(tls: ServerTls | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(
    Buffer.from(tls.ca),
    [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }],
    tls.clientRoles !== undefined,
  );
}

/**
 * Credentials and channel options to dial `address` (`host:port`). Bun refuses an IP address as the TLS
 * server name (SNI), so for an IP target the name sent is a placeholder, and the server's certificate is
 * checked against the IP address itself.
 */
export function clientCredentials(
  address: string,
  tls: ClientTls | undefined,
): { credentials: ChannelCredentials; options: ChannelOptions } {
  if (!tls) return { credentials: credentials.createInsecure(), options: {} };
  const host = parseHostPort(address)?.host ?? address;
  const creds = credentials.createSsl(Buffer.from(tls.ca), tls.key ? Buffer.from(tls.key) : null, tls.cert ? Buffer.from(tls.cert) : null, {
    checkServerIdentity: (_name, cert) => checkServerIdentity(host, cert),
  });
  const options: ChannelOptions = parseIp(host) ? { "grpc.ssl_target_name_override": "crawler-node.invalid" } : {};
  return { credentials: creds, options };
}

/**
 * The interceptor that lets only `roles` call the methods of `guarded` services (their full names, e.g.
 * `crawler.frontier.v1.FrontierService`). A caller whose certificate names no identity is UNAUTHENTICATED;
 * one naming another role is PERMISSION_DENIED; both hear which roles are allowed, and `onRefused` hears
 * every refusal (the server's log).
 */
export function callerRoleInterceptor(
  guarded: readonly string[],
  roles: readonly IdentityRole[],
  onRefused: (refused: RefusedCall) => void,
): ServerInterceptor {
  const allowed = roles.join(" and ");
  return (method, call) => {
    const service = method.path.split("/")[1] ?? "";
    if (!guarded.includes(service)) return new ServerInterceptingCall(call);
    // Checked when the call's metadata arrives, before any message is read; a refused call gets its status at once.
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const identity = identityOfAltNames(call.getAuthContext().sslPeerCertificate?.subjectaltname);
        if (identity && roles.includes(identity.role)) {
          next(metadata);
          return;
        }
        const caller = identity ? `crawler://${identity.role}/${identity.id}` : "a certificate naming no node identity";
        const reason = identity
          ? `${service} answers ${allowed} certificates only; this call came with a ${identity.role} certificate (${caller})`
          : `${service} answers ${allowed} certificates only; this call came with ${caller}`;
        onRefused({ method: method.path, caller, reason });
        call.sendStatus({ code: identity ? status.PERMISSION_DENIED : status.UNAUTHENTICATED, details: reason, metadata: new Metadata() });
      })
      .build();
    const responder = new ResponderBuilder().withStart((next) => next(listener)).build();
    return new ServerInterceptingCall(call, responder);
  };
}
