/**
 * The admin API's edges on a running cluster: every route but the health app's (/healthz, /readyz and
 * /metrics, open without a metrics token) and the dashboard page's files (they hold no data) needs the
 * bearer token (401 with WWW-Authenticate without it or
 * with a wrong one, before any body is read: a wrong token with a 10 MB body is 401, not 413; crawlctl with
 * a wrong token exits non-zero and says so); bad input is a 400 whose message names the problem and quotes
 * no more than a short prefix of it; every error is JSON with a stable code (404, 405, 413 too);
 * `/v1/openapi.json` is an OpenAPI 3 document that lists every route the API serves.
 */
import { describe, expect, test } from "bun:test";
import { useCluster, type ClusterUp } from "./harness.ts";

const cluster = useCluster("all");

/** Open: the page asks for the token and keeps it in the tab; its data calls carry it. */
const DASHBOARD_FILES = ["/dashboard", "/dashboard/app.js", "/dashboard/app.css", "/dashboard/config.json"];

type OpenApi = { openapi: string; info: { title: string }; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

/** Every operation the served OpenAPI document lists but the health app's (probes and /metrics), as requests to make. */
async function protectedOperations(c: ClusterUp): Promise<Array<{ method: string; path: string }>> {
  const doc = (await (await c.admin("/v1/openapi.json")).json()) as OpenApi;
  return Object.entries(doc.paths)
    .filter(([path]) => path !== "/healthz" && path !== "/readyz" && path !== "/metrics" && !DASHBOARD_FILES.includes(path))
    .flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({
        method: method.toUpperCase(),
        path: path.replace("{host}", "site0.test") + (path === "/v1/urls/explain" ? "?url=http%3A%2F%2Fsite0.test%2F" : ""),
      })),
    );
}

let c: ClusterUp;
const start = async () => {
  c ??= await cluster.up({ web: await cluster.web({ hosts: 1 }) });
  return c;
};

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

describe("cluster: the admin API's edges", () => {
  test("every admin route but /healthz, /readyz, /metrics and the dashboard's files answers 401 without the token or with a wrong one", async () => {
    const c = await start();
    for (const path of ["/healthz", "/readyz", "/metrics", ...DASHBOARD_FILES])
      expect({ path, status: (await c.admin(path, { auth: false })).status }).toEqual({ path, status: 200 });
    const operations = await protectedOperations(c);
    // The pause and resume routes change what the cluster does: they above all must be covered.
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(["POST /v1/hosts/site0.test/pause", "POST /v1/hosts/site0.test/resume", "POST /v1/seeds"]),
    );
    for (const { method, path } of operations) {
      const op = `${method} ${path}`;
      const init = {
        method,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? '{"urls":["http://site0.test/"]}' : undefined,
      };
      const none = await c.admin(path, { ...init, auth: false });
      expect({ op, status: none.status }).toEqual({ op, status: 401 });
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
      expect(await errorOf(none)).toMatchObject({ code: "unauthenticated" });
      const wrong = await c.admin(path, {
        ...init,
        auth: false,
        headers: { ...init.headers, authorization: "Bearer not-the-token-0123456789" },
      });
      expect({ op, status: wrong.status }).toEqual({ op, status: 401 });
      expect((await errorOf(wrong)).message).toContain("invalid bearer token");
    }
    // Authentication comes before the body: a wrong token with 10 MB is 401, the right one 413, both JSON.
    const big = new Uint8Array(10 * 1024 * 1024).fill(0x20);
    const wrongBig = await c.admin("/v1/seeds", {
      auth: false,
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer not-the-token-0123456789" },
      body: big,
    });
    expect(await errorOf(wrongBig)).toMatchObject({ status: 401, code: "unauthenticated" });
    const rightBig = await c.admin("/v1/seeds", { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect(await errorOf(rightBig)).toMatchObject({ status: 413, code: "payload_too_large" });

    const cli = await c.crawlctl(["status"], { token: "not-the-token-0123456789" });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/invalid bearer token/);
    expect(cli.stdout).toBe("");
  }, 60_000);

  test("a bad request body or query is a 400 that names the problem", async () => {
    const c = await start();
    const post = (body: string, type = "application/json") =>
      c.admin("/v1/seeds", { method: "POST", headers: { "content-type": type }, body });
    const cases: Array<[string, Response, RegExp]> = [
      ["unknown field", await post('{"url":["http://site0.test/"]}'), /unknown field "url"/],
      ["not JSON", await post('{"urls": ['), /not valid JSON/],
      ["not a JSON content type", await post('{"urls":["http://site0.test/"]}', "text/plain"), /Content-Type: application\/json/],
      ["empty body", await post(""), /empty/],
      ["no URLs", await post('{"urls":[]}'), /at least one URL/],
      ["a number for a URL", await post('{"urls":[42]}'), /urls\[0\]: must be a string/],
      ["an array for the body", await post('["http://site0.test/"]'), /must be a JSON object/],
      ["explain without url", await c.admin("/v1/urls/explain"), /url: required/],
      ["captures without url", await c.admin("/v1/captures"), /url: required/],
      ["captures of a non-URL", await c.admin("/v1/captures?url=garbage"), /url: not a URL the crawl can fetch/],
      ["captures with a bad limit", await c.admin("/v1/captures?url=http%3A%2F%2Fsite0.test%2F&limit=-1"), /limit: a whole number/],
    ];
    for (const [what, res, message] of cases) {
      const err = await errorOf(res);
      expect({ what, status: err.status, code: err.code }).toEqual({ what, status: 400, code: "invalid_argument" });
      expect(err.message).toMatch(message);
    }
    // Long input is refused without being echoed back at its length.
    const longHost = await c.admin(`/v1/hosts/${"a".repeat(5_000)}`);
    const longHostText = await longHost.text();
    expect({ status: longHost.status, code: JSON.parse(longHostText).error.code }).toEqual({ status: 400, code: "invalid_argument" });
    expect(longHostText.length).toBeLessThan(300);
    const garbage = await errorOf(await c.admin("/v1/urls/explain?url=garbage"));
    expect(garbage).toMatchObject({ status: 400, code: "invalid_argument" });
    // Unknown routes and wrong methods are JSON too.
    expect(await errorOf(await c.admin(`/v1/${"x".repeat(3_000)}`))).toMatchObject({ status: 404, code: "not_found" });
    const wrongMethod = await c.admin("/v1/seeds");
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await errorOf(wrongMethod)).toMatchObject({ status: 405, code: "method_not_allowed" });
    // The same body, well-formed, is accepted.
    const good = await post('{"urls":["http://site0.test/", "ftp://site0.test/x"]}');
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({ accepted: 1, rejected: [{ url: "ftp://site0.test/x" }] });
  }, 60_000);

  test("/v1/openapi.json is an OpenAPI 3 document listing every route", async () => {
    const c = await start();
    const res = await c.admin("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = (await res.json()) as OpenApi;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBeTruthy();
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
        "GET /v1/openapi.json",
        "GET /v1/ring",
        "GET /v1/nodes",
        "GET /v1/stats",
        "GET /v1/dashboard",
        ...DASHBOARD_FILES.map((path) => `GET ${path}`),
        "POST /v1/seeds",
        "GET /v1/hosts/{host}",
        "POST /v1/hosts/{host}/pause",
        "POST /v1/hosts/{host}/resume",
        "GET /v1/urls/explain",
        "POST /v1/jobs",
        "GET /v1/jobs",
        "GET /v1/jobs/{id}",
        "POST /v1/jobs/{id}/pause",
        "POST /v1/jobs/{id}/resume",
        "POST /v1/jobs/{id}/cancel",
        "POST /v1/jobs/{id}/seeds",
        "GET /v1/jobs/{id}/pages",
        "GET /v1/captures",
      ].sort(),
    );
    // Every protected operation documents its 401; every operation that takes input documents its 400.
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path === "/healthz" || path === "/readyz" || DASHBOARD_FILES.includes(path)) continue;
      for (const [method, op] of Object.entries(ops))
        expect({ op: `${method} ${path}`, has401: "401" in op.responses }).toEqual({ op: `${method} ${path}`, has401: true });
    }
    expect(Object.keys(doc.paths["/v1/seeds"]!["post"]!.responses)).toContain("400");
    expect(Object.keys(doc.paths["/v1/urls/explain"]!["get"]!.responses)).toContain("400");
  }, 60_000);
});
