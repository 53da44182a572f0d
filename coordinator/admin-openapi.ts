/**
 * The OpenAPI 3.1 document of the admin HTTP API, written by hand beside the routes (admin-api.ts) and
 * served at `/v1/openapi.json`. A test checks that every route of the app appears here and every
 * operation here is a route, so the two cannot drift apart silently.
 */

import { DASHBOARD_SCHEMA, HOST_ROW_SCHEMA } from "./dashboard-openapi.ts";
import { JOB_PATHS, JOB_SCHEMAS } from "./jobs-openapi.ts";

const error = { $ref: "#/components/responses/Error" };
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const tooLarge = { $ref: "#/components/responses/PayloadTooLarge" };
const json = (schema: object) => ({ "application/json": { schema } });
const ok = (description: string, schema: object) => ({ description, content: json(schema) });
const hostParam = {
  name: "host",
  in: "path",
  required: true,
  description:
    "Host key: the host name (at most 253 characters), with the port when it is not the scheme's default (example.com, example.com:8080); a longer one is a 400",
  schema: { type: "string", maxLength: 259 },
};
/** What the three host routes answer: the host as the frontier node holding it sees it. */
const hostResponses = {
  "200": ok("The host", { type: "object", properties: { host: { $ref: "#/components/schemas/HostInfo" } } }),
  "400": error,
  "401": unauthorized,
  "404": error,
  "503": error,
};

const int = { type: "integer" };
const str = { type: "string" };
const bool = { type: "boolean" };
const counts = { type: "object", additionalProperties: { type: "number" } };

export const ADMIN_OPENAPI = {
  openapi: "3.1.0",
  info: {
    title: "Crawler coordinator admin API",
    version: "1.0.0",
    description: [
      "Cluster state, totals, seeds, crawl jobs and host control of the crawler. JSON in and out.",
      "Every route except /healthz, /readyz and /metrics needs `Authorization: Bearer <token>` with one of the admin tokens (--admin-token, comma-separated: two are valid at once during a rotation); the token is checked before the request body is read.",
      "/healthz and /readyz are always open; /metrics is open unless the coordinator has a metrics token (--metrics-token), which it then requires (the admin token is not accepted there).",
      'Every error is `{"error": {"code", "message"}}` with a stable code: invalid_argument (400), unauthenticated (401), not_found (404, unknown routes too), method_not_allowed (405, with Allow), failed_precondition (409), payload_too_large (413), unavailable (503), not_leader (503), internal (500). Messages quote at most a short prefix of any input.',
      "Only the coordinator holding the lease serves /v1/ (this document aside): a standby answers 503 with code not_leader and `leader`, the lease holder's id when known; ask another coordinator.",
    ].join(" "),
  },
  security: [{ bearerAuth: [] }],
  paths: {
    "/healthz": {
      get: {
        summary: "The process is up",
        security: [],
        responses: { "200": ok("Alive", { type: "object", properties: { status: str } }) },
      },
    },
    "/readyz": {
      get: {
        summary: "This coordinator holds the lease and a ring exists",
        security: [],
        responses: {
          "200": ok("Ready", { type: "object", properties: { status: str } }),
          "503": ok("Not ready (standby, or no ring yet)", { type: "object", properties: { status: str } }),
        },
      },
    },
    "/metrics": {
      get: {
        summary: "Cluster totals as Prometheus text (metrics named crawler_cluster_*); needs the metrics token only when one is configured",
        security: [{}, { metricsToken: [] }],
        responses: {
          "200": { description: "Prometheus text format 0.0.4", content: { "text/plain": { schema: str } } },
          "401": unauthorized,
        },
      },
    },
    "/dashboard": {
      get: {
        summary:
          "The dashboard page (HTML); open, since it holds no data: it asks for the admin token, keeps it in the browser tab's sessionStorage and calls /v1/dashboard with it",
        security: [],
        responses: { "200": { description: "The page", content: { "text/html": { schema: str } } } },
      },
    },
    "/dashboard/app.js": {
      get: {
        summary: "The page's script",
        security: [],
        responses: { "200": { description: "JavaScript", content: { "text/javascript": { schema: str } } } },
      },
    },
    "/dashboard/app.css": {
      get: {
        summary: "The page's style sheet",
        security: [],
        responses: { "200": { description: "CSS", content: { "text/css": { schema: str } } } },
      },
    },
    "/dashboard/config.json": {
      get: {
        summary: "Whether the page must ask for a token, and which source it shows",
        security: [],
        responses: {
          "200": ok("Page settings", { type: "object", properties: { tokenRequired: bool, source: { enum: ["cluster", "crawl"] } } }),
        },
      },
    },
    "/v1/dashboard": {
      get: {
        summary:
          "Everything the dashboard shows: totals, recent rates, outcomes by kind, nodes, ring and moves, host boards, politeness, histograms",
        description:
          "Built from the node records (frontier nodes report their host boards and histograms with each heartbeat), so it is at most a heartbeat old; reads within a second share one snapshot. `crawl --http` serves the same document for its one process.",
        responses: { "200": ok("The dashboard", { $ref: "#/components/schemas/Dashboard" }), "401": unauthorized },
      },
    },
    "/v1/openapi.json": {
      get: { summary: "This document", responses: { "200": ok("OpenAPI 3.1 document", { type: "object" }), "401": unauthorized } },
    },
    "/v1/ring": {
      get: {
        summary: "The ring: owner and pending previous owner of every partition of every region",
        responses: { "200": ok("The ring", { $ref: "#/components/schemas/Ring" }), "401": unauthorized, "503": error },
      },
    },
    "/v1/nodes": {
      get: {
        summary: "Every node record with its state (live, draining, dead, left)",
        responses: {
          "200": ok("Nodes", {
            type: "object",
            required: ["nodes"],
            properties: { nodes: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
          }),
          "401": unauthorized,
          "503": error,
        },
      },
    },
    "/v1/stats": {
      get: {
        summary: "Cluster totals (the numbers crawlctl status shows)",
        responses: { "200": ok("Totals", { $ref: "#/components/schemas/Stats" }), "401": unauthorized, "503": error },
      },
    },
    "/v1/seeds": {
      post: {
        summary: "Add seed URLs and feeds; each is normalized and published to its partition",
        description:
          "A URL that does not normalize, or whose host the address policy refuses (an internal address in any notation, localhost, a local or single-label name), is rejected with the reason (`refused-address: loopback: ...`) and never published. A URL of `feeds` (RSS 2.0, Atom 1.0) is read as a feed, not fetched as a page: its items are queued first, and it is read again on its own adaptive schedule with a conditional GET.",
        requestBody: { required: true, content: json({ $ref: "#/components/schemas/SeedsAndFeedsRequest" }) },
        responses: {
          "200": ok("What was accepted and what was rejected, with reasons", { $ref: "#/components/schemas/SeedsResponse" }),
          "400": error,
          "401": unauthorized,
          "413": tooLarge,
          "503": error,
        },
      },
    },
    "/v1/hosts/{host}": {
      get: { summary: "A host's state, from the frontier node that holds it", parameters: [hostParam], responses: hostResponses },
    },
    "/v1/hosts/{host}/pause": {
      post: { summary: "Pause a host: nothing more is fetched from it until resumed", parameters: [hostParam], responses: hostResponses },
    },
    "/v1/hosts/{host}/resume": {
      post: { summary: "Resume a paused host", parameters: [hostParam], responses: hostResponses },
    },
    "/v1/urls/explain": {
      get: {
        summary: "Explain a URL: normalized form, partition, region, owner, seen, robots, state, address refusal",
        description:
          "Input that is not an absolute URL at all is a 400; a URL the crawler would never crawl (another scheme) is explained with rejectedReason; a URL whose host the address policy refuses is explained with addressRefusal, one the crawl's scope or filters leave out with scopeRejection.",
        parameters: [{ name: "url", in: "query", required: true, schema: { type: "string", maxLength: 8192 } }],
        responses: {
          "200": ok("The explanation", { type: "object", properties: { explanation: { $ref: "#/components/schemas/UrlExplanation" } } }),
          "400": error,
          "401": unauthorized,
          "503": error,
        },
      },
    },
    "/v1/captures": {
      get: {
        summary: "Where a URL's last captures are stored (WARC file, offset, length), newest first",
        description: [
          "Answered by the frontier node that holds the URL's host, from the URL's own state in its store, so it survives restarts and handoffs.",
          "At most the last 8 captures of a URL are kept; robots.txt and sitemaps are not captures (the CDXJ index lists them).",
          "A URL with no capture (unknown to the crawl, not fetched yet, or nothing stored: an error, a noindex page) is an empty array with 200, never a 404: 404 means no frontier node owns the URL's partition yet.",
          "`warc.file` is the file's name in the fetching node's WARC directory, or its object URL (s3://bucket/key) when that node uploads its files; read `length` bytes at `offset` for the record's one gzip member.",
          "A `url` that is missing, not an absolute http(s) URL or one the crawl would never fetch, or a `limit` that is not a whole number from 1 to 1000, is a 400.",
        ].join(" "),
        parameters: [
          { name: "url", in: "query", required: true, schema: { type: "string", maxLength: 8192 } },
          {
            name: "limit",
            in: "query",
            required: false,
            description: "At most this many captures, newest first; default every capture kept",
            schema: { type: "integer", minimum: 1, maximum: 1000 },
          },
        ],
        responses: {
          "200": ok("The URL's captures, newest first", { type: "array", items: { $ref: "#/components/schemas/Capture" } }),
          "400": error,
          "401": unauthorized,
          "404": error,
          "503": error,
        },
      },
    },
    ...JOB_PATHS,
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: "http", scheme: "bearer", description: "One of the admin tokens" },
      metricsToken: { type: "http", scheme: "bearer", description: "One of the metrics tokens, when configured" },
    },
    responses: {
      Error: { description: "The request failed; the message says why", content: json({ $ref: "#/components/schemas/Error" }) },
      PayloadTooLarge: {
        description: "The body is larger than the API accepts (8 MiB): send fewer URLs per request",
        content: json({ $ref: "#/components/schemas/Error" }),
      },
      MethodNotAllowed: {
        description: "The route exists with another method",
        headers: { Allow: { schema: str } },
        content: json({ $ref: "#/components/schemas/Error" }),
      },
      Unauthorized: {
        description: "Missing or wrong bearer token",
        headers: { "WWW-Authenticate": { schema: str } },
        content: json({ $ref: "#/components/schemas/Error" }),
      },
    },
    schemas: {
      Error: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: {
                enum: [
                  "invalid_argument",
                  "unauthenticated",
                  "not_found",
                  "method_not_allowed",
                  "failed_precondition",
                  "payload_too_large",
                  "unavailable",
                  "not_leader",
                  "internal",
                ],
              },
              message: str,
              leader: { ...str, description: "With code not_leader: the lease holder's id, or empty" },
            },
          },
        },
      },
      Ring: {
        type: "object",
        properties: {
          partitions: int,
          vnodes: int,
          epoch: int,
          revision: int,
          deathTimeoutMs: {
            ...int,
            description: "The writing coordinator's death timeout, ms: frontier nodes fence themselves by it (absent from older rings)",
          },
          leaderTerm: {
            ...int,
            description:
              "The writing coordinator's term (the revision of the lease grant that began its tenure); a coordinator never writes over a higher one (absent from older rings)",
          },
          politenessKey: {
            type: "string",
            enum: ["domain", "ip"],
            description:
              "The fleet's --politeness-key when it is not host (absent: host): hosts are placed by it, so it is fixed for the cluster's life",
          },
          regions: {
            type: "object",
            additionalProperties: {
              type: "object",
              properties: { owners: { type: "array", items: str }, previous: { type: "array", items: str } },
            },
          },
        },
      },
      Node: {
        type: "object",
        properties: {
          id: str,
          role: { enum: ["coordinator", "frontier", "fetcher"] },
          region: str,
          runtime: str,
          state: { enum: ["live", "draining", "dead", "left"] },
          status: { enum: ["active", "draining", "left"] },
          partitions: { type: "array", items: int },
          grpcAddress: str,
          httpAddress: str,
          startedAt: int,
          heartbeatAt: int,
          heartbeatAgeMs: int,
          counters: counts,
          gauges: counts,
        },
      },
      Stats: {
        type: "object",
        properties: {
          atMs: int,
          counters: counts,
          gauges: counts,
          pagesFetched: int,
          pagesPerSecond: { type: "number" },
          queued: int,
          inFlight: int,
          errors: int,
          frontierNodes: int,
          fetchNodes: int,
          deadNodes: int,
        },
      },
      Dashboard: DASHBOARD_SCHEMA,
      HostRow: HOST_ROW_SCHEMA,
      SeedsRequest: {
        type: "object",
        required: ["urls"],
        additionalProperties: false,
        properties: { urls: { type: "array", minItems: 1, items: { type: "string", minLength: 1 } } },
      },
      SeedsAndFeedsRequest: {
        type: "object",
        description: "At least one URL in all; urls and feeds together count against the per-request limit",
        additionalProperties: false,
        properties: {
          urls: { type: "array", description: "Page URLs", items: { type: "string", minLength: 1 } },
          feeds: { type: "array", description: "Feed URLs (RSS 2.0, Atom 1.0), read as feeds", items: { type: "string", minLength: 1 } },
        },
      },
      ...JOB_SCHEMAS,
      SeedsResponse: {
        type: "object",
        properties: {
          accepted: int,
          rejected: { type: "array", items: { type: "object", properties: { url: str, reason: str } } },
        },
      },
      HostInfo: {
        type: "object",
        properties: {
          host: str,
          partition: int,
          region: str,
          owner: str,
          queued: int,
          inFlight: bool,
          nextAllowedAtMs: int,
          gapMs: int,
          paused: bool,
          robotsVerdict: str,
          robotsExpiresAtMs: int,
          crawlDelayMs: int,
          fetches: int,
          failures: int,
          throttles: int,
          lastStatus: int,
          lastError: str,
          pagesToday: int,
          minGapOverrideMs: int,
        },
      },
      Capture: {
        type: "object",
        required: ["timestamp", "status", "contentType", "digest", "job", "warc"],
        properties: {
          timestamp: { type: "string", format: "date-time", description: "When the response arrived (UTC, milliseconds)" },
          status: { type: "integer", description: "HTTP status of the response" },
          contentType: { type: ["string", "null"], description: "The response's Content-Type header; null without one" },
          digest: {
            type: ["string", "null"],
            description:
              "The crawler's content fingerprint of the payload (128-bit MurmurHash3, 32 hex digits), equal for equal bytes; null for an answer that is not 2xx. The record's own WARC-Payload-Digest is SHA-256.",
          },
          job: { type: "string", description: 'The crawl job the capture belongs to ("default")' },
          warc: {
            type: "object",
            required: ["file", "offset", "length"],
            description: "The response (or revisit) record: one gzip member of `length` bytes at byte `offset` of `file`",
            properties: { file: str, offset: int, length: int },
          },
        },
      },
      UrlExplanation: {
        type: "object",
        properties: {
          input: str,
          normalized: str,
          rejectedReason: str,
          host: str,
          partition: int,
          region: str,
          owner: str,
          seen: bool,
          robots: str,
          robotsRule: str,
          state: str,
          lastStatus: int,
          lastFetchedAtMs: int,
          nextFetchAtMs: int,
          failures: int,
          note: str,
          trap: str,
          addressRefusal: { type: "string", description: "Why the address policy refuses the URL's host; empty when it does not" },
          scopeRejection: {
            type: "string",
            description:
              "The scope or filter rule that leaves the URL out (scope, depth, extension, host-not-allowed, url-denied, url-not-allowed: and why); empty when none does",
          },
          sitemap: {
            type: "string",
            description: "For a sitemap the crawl knows: pending, read, failed or disallowed; empty for any other URL",
          },
          foundByRender: {
            type: "boolean",
            description: "First found only in a rendered page's DOM (--render), not in any HTML as received",
          },
          maxPerAddress: { ...int, description: "The cap per server address: requests open at once to one server (--max-per-address)" },
          addressGapMs: { ...int, description: "Least time between two requests to one server (--address-gap)" },
          server: {
            type: "string",
            description:
              "The server the URL's host is capped under: ip:ADDRESS as the fetcher resolves the name, or through a proxy domain:REGISTRABLE-DOMAIN; empty when not known (serverNote says why)",
          },
          serverNote: { type: "string", description: "How the server was found, or why it is not known" },
          serverStateKnown: { type: "boolean", description: "Whether the gate could say the server's state (the next two fields)" },
          serverHolders: { ...int, description: "Requests to the server in flight now (passes held)" },
          serverNextAllowedAtMs: { ...int, description: "When the server's gap allows the next request, epoch ms; 0: now" },
          serverPasses: { ...int, description: "Passes given for the server, on the answering process's per-address board (0: not on it)" },
          serverWaits: { ...int, description: "Of them, passes that had to wait (requests given back without a pass are not among them)" },
          serverLongestWaitMs: { ...int, description: "The longest wait for a pass of the server, or before a request was given back" },
          serverGivenBack: {
            ...int,
            description: "Requests to the server given back without a pass (no pass within the wait), apart from serverWaits",
          },
        },
      },
    },
  },
} as const;
