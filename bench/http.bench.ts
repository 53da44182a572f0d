/**
 * Throughput of the HTTP fetch step: 64 concurrent fetches of a 25 KB page from a local node:http
 * server running in a child process (so client and server do not share one event loop), reported as
 * requests per second. Scenarios: one origin with 64 connections, 64 origins (names mapped to
 * 127.0.0.1 by the injected resolver) with the production default of one connection each, and the
 * same page gzip-encoded to show the decompression cost. Client CPU per request is printed too,
 * because on a shared machine it moves far less than the wall-clock rate.
 *
 *   bun bench/http.bench.ts [--seconds 4]
 */
import { AddressPolicy } from "../core/net/index.ts";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { HttpFetcher } from "../engine/fetch/http/index.ts";

const PAGE_BYTES = 25 * 1024;
const CONCURRENCY = 64;

function page(): Buffer {
  const words = "crawler fetch body link anchor paragraph heading ".split(" ");
  let html = "<!doctype html><html><head><title>bench</title></head><body>";
  for (let i = 0; html.length < PAGE_BYTES - 20; i++) html += `<p><a href="/p/${i}">${words[i % words.length]}</a> `;
  return Buffer.from(html.slice(0, PAGE_BYTES - 14) + "</body></html>");
}

async function serve(): Promise<void> {
  const plain = page();
  const gzipped = gzipSync(plain);
  const server = createServer((req, res) => {
    const gzip = req.url?.startsWith("/gz") && /gzip/.test(req.headers["accept-encoding"] ?? "");
    const body = gzip ? gzipped : plain;
    res.writeHead(200, { "Content-Type": "text/html", "Content-Length": body.length, ...(gzip ? { "Content-Encoding": "gzip" } : {}) });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
}

async function startServerProcess(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, [process.argv[1] ?? "", "--serve"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { port, stop: () => child.kill() };
}

interface Scenario {
  name: string;
  origins: number;
  perOrigin: number;
  path: string;
}

async function run(port: number, scenario: Scenario, seconds: number): Promise<number> {
  const fetcher = new HttpFetcher({
    userAgent: "benchbot/1.0",
    connectTimeoutMs: 5000,
    responseTimeoutMs: 20_000,
    maxBodyBytes: 5 * 1024 * 1024,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
    maxConnectionsPerOrigin: scenario.perOrigin,
    lookup: async () => [{ address: "127.0.0.1", family: 4 }],
  });
  const urls = Array.from({ length: scenario.origins }, (_, i) => `http://host${i}.bench:${port}${scenario.path}`);
  let done = 0;
  let failed = 0;
  let measuring = false;
  let stop = false;
  const worker = async (id: number): Promise<void> => {
    for (let n = 0; !stop; n++) {
      const outcome = await fetcher.fetch({ url: urls[(id + n) % urls.length] ?? "" });
      const ok = outcome.kind === "response" && outcome.status === 200 && outcome.body.length === PAGE_BYTES;
      if (!measuring) continue;
      if (ok) done++;
      else failed++;
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, (_, id) => worker(id));
  await new Promise((resolve) => setTimeout(resolve, 1000)); // warm-up: connections, JIT
  measuring = true;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = (performance.now() - started) / 1000;
  measuring = false;
  stop = true;
  await Promise.all(workers);
  await fetcher.close();
  const rate = done / elapsed;
  // CPU per request is the steadier figure on a shared machine: wall-clock rate moves with the load.
  const cpuPerRequest = (cpu.user + cpu.system) / Math.max(done, 1);
  console.log(
    `${scenario.name.padEnd(46)} ${rate.toFixed(0).padStart(7)} req/s  ${cpuPerRequest.toFixed(0).padStart(4)} µs client CPU/req  (${done} ok, ${failed} failed in ${elapsed.toFixed(1)} s)`,
  );
  return rate;
}

async function main(): Promise<void> {
  const secondsFlag = process.argv.indexOf("--seconds");
  const seconds = secondsFlag === -1 ? 4 : Number(process.argv[secondsFlag + 1]);
  const server = await startServerProcess();
  try {
    console.log(`HttpFetcher, ${CONCURRENCY} concurrent fetches of a ${PAGE_BYTES / 1024} KB page, server in a child process`);
    await run(server.port, { name: "1 origin x 64 connections", origins: 1, perOrigin: 64, path: "/page" }, seconds);
    await run(server.port, { name: "64 origins x 1 connection (politeness default)", origins: 64, perOrigin: 1, path: "/page" }, seconds);
    await run(server.port, { name: "64 origins x 1 connection, gzip-encoded", origins: 64, perOrigin: 1, path: "/gz" }, seconds);
  } finally {
    server.stop();
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
