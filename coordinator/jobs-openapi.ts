/**
 * The job routes' part of the admin OpenAPI document (admin-openapi.ts spreads it in): paths and schemas.
 * `crawl --http` serves every one of these routes by the same code (adapters/http job-routes.ts), with the
 * same bodies, answers and errors; the descriptions say where the two differ (where records are kept).
 */
const error = { $ref: "#/components/responses/Error" };
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const tooLarge = { $ref: "#/components/responses/PayloadTooLarge" };
const json = (schema: object) => ({ "application/json": { schema } });
const ok = (description: string, schema: object) => ({ description, content: json(schema) });
const int = { type: "integer" };
const str = { type: "string" };
const strings = { type: "array", items: str };
const job = { $ref: "#/components/schemas/Job" };
const idParam = {
  name: "id",
  in: "path",
  required: true,
  description: "The job id: 1-40 characters of a-z, 0-9 and -; anything else is a 400, an unknown job a 404",
  schema: { type: "string", pattern: "^[a-z0-9-]{1,40}$" },
};
const jobAnswer = (what: string) => ({
  "200": ok(what, job),
  "400": error,
  "401": unauthorized,
  "404": error,
  "409": error,
  "503": error,
});

/** The settings a job may set besides its limits: those of the config table, checked as its flags are. */
const scopeSettings = {
  scope: { enum: ["host", "domain", "any"], description: "As --scope: where links may lead from the job's seeds" },
  maxDepth: { ...int, minimum: 0, maximum: 1000, description: "As --max-depth" },
  allowHosts: { ...strings, description: "As --allow-hosts" },
  allowUrls: { ...strings, description: "As --allow-urls: globs or re:REGEX" },
  denyUrls: { ...strings, description: "As --deny-urls" },
  denyExtensions: { ...strings, description: "As --deny-extensions (the list replaces the default)" },
  maxUrlLength: { ...int, minimum: 32, maximum: 65536, description: "As --max-url-length" },
  maxRepeatedSegment: { ...int, minimum: 2, maximum: 100, description: "As --max-repeated-segment" },
};

export const JOB_PATHS = {
  "/v1/jobs": {
    get: {
      summary: "Every crawl job, default first, then in order of creation",
      responses: {
        "200": ok("The jobs", { type: "object", properties: { jobs: { type: "array", items: job } } }),
        "401": unauthorized,
        "503": error,
      },
    },
    post: {
      summary: "Create a crawl job and add its seeds",
      description:
        "The job starts running at once. Its id must be new (409 otherwise; ids of ended jobs are never reused). Seeds are checked as POST /v1/seeds checks them; the answer is the job as GET answers it, with `seeds` (what was accepted and rejected). On `crawl --http` the job is kept in jobs.sqlite under --out and survives a restart on the same directory.",
      requestBody: { required: true, content: json({ $ref: "#/components/schemas/JobRequest" }) },
      responses: {
        "201": ok("The job, as created", {
          allOf: [job, { type: "object", properties: { seeds: { $ref: "#/components/schemas/SeedsResponse" } } }],
        }),
        "400": error,
        "401": unauthorized,
        "409": error,
        "413": tooLarge,
        "503": error,
      },
    },
  },
  "/v1/jobs/{id}": {
    get: { summary: "One job: its settings, state and counters", parameters: [idParam], responses: jobAnswer("The job") },
  },
  "/v1/jobs/{id}/pause": {
    post: {
      summary: "Pause a job: its URLs are not handed out (other jobs' URLs of the same hosts are); repeating it changes nothing",
      parameters: [idParam],
      responses: jobAnswer("The job, paused"),
    },
  },
  "/v1/jobs/{id}/resume": {
    post: { summary: "Resume a paused job", parameters: [idParam], responses: jobAnswer("The job, running") },
  },
  "/v1/jobs/{id}/cancel": {
    post: {
      summary:
        "Cancel a job: its queued URLs are dropped, other jobs' URLs of the same hosts untouched; an ended job cannot be cancelled (409)",
      parameters: [idParam],
      responses: jobAnswer("The job, cancelled"),
    },
  },
  "/v1/jobs/{id}/pages": {
    get: {
      summary: "The job's records of the feed of fetched pages, in the order they were published",
      description:
        "The same records as the JetStream stream CRAWL_PAGES holds on subject crawl.pages.<id>: one per page result of the job (a response of any status, a network error, a redirect, a duplicate, a refusal). Without `after`, from the oldest record kept; `next` is the cursor to pass as `after` for the following page (the same `next` when nothing newer exists yet). Records are kept by age and size (--feed-max-age, --feed-max-bytes). On `crawl --http` the records are kept in pages.sqlite under --out (the page results of the runs with --http), in the same shape and order, and survive a restart on the same directory.",
      parameters: [
        idParam,
        {
          name: "after",
          in: "query",
          required: false,
          description: "A `next` of an earlier answer (digits)",
          schema: { type: "string", pattern: "^[0-9]{1,16}$" },
        },
        {
          name: "limit",
          in: "query",
          required: false,
          description: "Records at most, 1-1000 (default 100)",
          schema: { type: "integer", minimum: 1, maximum: 1000 },
        },
      ],
      responses: {
        "200": ok("A page of records", {
          type: "object",
          required: ["records", "next"],
          properties: { records: { type: "array", items: { $ref: "#/components/schemas/PageRecord" } }, next: str },
        }),
        "400": error,
        "401": unauthorized,
        "404": error,
        "503": error,
      },
    },
  },
  "/v1/jobs/{id}/seeds": {
    post: {
      summary: "Add seed URLs and feeds to a job that has not ended",
      description:
        "The body is POST /v1/seeds's: `urls` (pages) and `feeds` (RSS 2.0, Atom 1.0, read as feeds), either may be left out, together at most the per-request limit; the seeds and feeds carry the job.",
      parameters: [idParam],
      requestBody: { required: true, content: json({ $ref: "#/components/schemas/SeedsRequest" }) },
      responses: {
        ...jobAnswer("What was accepted and what was rejected"),
        "200": ok("What was accepted and rejected", { $ref: "#/components/schemas/SeedsResponse" }),
        "413": tooLarge,
      },
    },
  },
};

const location = {
  type: ["object", "null"],
  properties: { file: str, offset: int, length: int },
  description: "Where the record is stored: file, offset and length in it; null when not known",
};

export const JOB_SCHEMAS = {
  PageRecord: {
    type: "object",
    properties: {
      job: str,
      url: str,
      status: { ...int, description: "HTTP status; 0 without an answer" },
      outcome: { enum: ["fetched", "not-modified", "redirect", "duplicate", "http-error", "network-error", "refused"] },
      fetchedAt: { ...str, format: "date-time" },
      contentType: { type: ["string", "null"] },
      length: { ...int, description: "Body bytes after decompression" },
      digest: { type: ["string", "null"], description: "Exact content fingerprint" },
      simhash: { type: ["string", "null"] },
      warc: { ...location, description: "The WARC response record of the page" },
      text: { ...location, description: "The WET text record of the page" },
      linksFound: int,
      region: str,
    },
  },
  JobRequest: {
    type: "object",
    required: ["id"],
    additionalProperties: false,
    properties: {
      id: { type: "string", pattern: "^[a-z0-9-]{1,40}$", description: "Not `default`: seeds added without a job are that job's" },
      seeds: { ...strings, description: "Seed URLs (with feeds, at most the per-request limit of POST /v1/seeds)" },
      feeds: {
        ...strings,
        description:
          "Feed URLs (RSS 2.0, Atom 1.0) of the job, read as feeds (items queued first, reread on their own schedule); counted with seeds against the limit",
      },
      maxPages: {
        ...int,
        minimum: 0,
        description:
          "Most page results of the job, never passed: its page tasks are handed out against a budget of this many; it ends (done, max-pages) once the budget is spent; 0: no limit",
      },
      maxDuration: {
        ...str,
        description: 'Time after its start after which it ends (done, max-duration): "90s", "2h"; "0" or absent: no limit; at most 1w',
      },
      weight: { ...int, minimum: 1, maximum: 1000, description: "Its share of the turns on a host it shares with other jobs; default 1" },
      ...scopeSettings,
    },
  },
  Job: {
    type: "object",
    required: ["id", "number", "state", "reason", "pages", "queued", "errors", "startedAt", "endedAt", "maxPages", "maxDuration", "weight"],
    properties: {
      id: str,
      number: { ...int, description: "The job's small number, carried by each of its URLs (default: 0)" },
      state: { enum: ["running", "paused", "done", "cancelled"] },
      reason: { enum: ["max-pages", "max-duration", "cancelled", "finished", null], description: "Why it ended; null until then" },
      pages: { ...int, description: "Page results of the job: fetched pages, errors, redirects, robots denials, duplicates" },
      queued: { ...int, description: "Its URLs in the queues now" },
      errors: { ...int, description: "Of its page results, the errors" },
      startedAt: { ...str, format: "date-time" },
      endedAt: { type: ["string", "null"], format: "date-time" },
      maxPages: int,
      maxDuration: str,
      weight: int,
      ...scopeSettings,
    },
  },
};
