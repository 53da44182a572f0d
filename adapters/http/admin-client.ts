/**
 * A client of the coordinator's admin HTTP API at several base URLs (a leader and its standbys, e.g.
 * `cluster.json`'s comma-separated `adminUrl`), for scripts, launchers and tests: each request goes to the
 * URL that answered last, and moves to the next when that one is unreachable or answers 503 `not_leader`
 * (a standby refuses before doing anything, so asking elsewhere is safe). While a standby refuses and no
 * URL serves (a failover under way), it asks again until `failoverMs` has passed. Any other answer, error
 * statuses included, is returned as the Response. Uses `fetch` only, so it runs on Bun and Deno; `ca`
 * (an HTTPS admin API whose certificate a private CA signed) is Bun's fetch option.
 */

export interface AdminClientOptions {
  token?: string;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** How long to keep asking while only standbys answer. Default 15 s. */
  failoverMs?: number;
  /** PEM of the CA that signs the coordinators' HTTPS certificates (else the system's CAs). */
  ca?: string;
}

/** `"http://a:1, http://b:2"` as a list (blanks dropped, trailing slashes removed). */
export function parseBaseUrls(text: string): string[] {
  return text
    .split(",")
    .map((u) => u.trim().replace(/\/+$/, ""))
    .filter(Boolean);
}

export class AdminClient {
  private preferred = 0;

  constructor(
    readonly baseUrls: readonly string[],
    private readonly opts: AdminClientOptions = {},
  ) {
    if (baseUrls.length === 0) throw new Error("AdminClient needs at least one base URL");
  }

  /** The fetch option that checks the coordinators' certificates against `ca` (none without it). */
  tlsInit(): { tls?: { ca: string } } {
    return this.opts.ca ? { tls: { ca: this.opts.ca } } : {};
  }

  /** The leader's answer to `path` (see the module comment); rejects when no URL served. */
  async request(path: string, { auth, ...init }: RequestInit & { auth?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (auth !== false && this.opts.token) headers.set("authorization", `Bearer ${this.opts.token}`);
    const deadline = Date.now() + (this.opts.failoverMs ?? 15_000);
    let pauseMs = 250;
    for (;;) {
      const failures: string[] = [];
      let standby = false;
      for (let k = 0; k < this.baseUrls.length; k++) {
        const i = (this.preferred + k) % this.baseUrls.length;
        const base = this.baseUrls[i]!;
        let res: Response;
        try {
          res = await fetch(`${base}${path}`, {
            ...init,
            ...this.tlsInit(),
            headers,
            signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
          });
        } catch (error) {
          failures.push(`${base}: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        if (res.status === 503 && (await isNotLeader(res))) {
          standby = true;
          failures.push(`${base}: a standby`);
          continue;
        }
        this.preferred = i;
        return res;
      }
      if (!standby || Date.now() + pauseMs > deadline) {
        throw new Error(`${standby ? "no coordinator holds the lease" : "no coordinator could be reached"}: ${failures.join("; ")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, 1_000);
    }
  }

  /** GET `path` as JSON; rejects on a status other than 2xx, with the body in the message. */
  async json<T>(path: string): Promise<T> {
    const res = await this.request(path);
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }
}

async function isNotLeader(res: Response): Promise<boolean> {
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } };
    return body.error?.code === "not_leader";
  } catch {
    return false;
  }
}
