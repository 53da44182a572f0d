/**
 * Throughput of the test web: how many generated pages per second it serves to 64 concurrent keep-alive
 * clients over loopback, with the server in this process and in a separate one (the benchmark crawl
 * needs well above 1,500 pages/s of 25 KB with the crawler on the same box). The clients use the proxy
 * form, as the crawler does, over random pages of many hosts so nothing is served from a warm cache.
 *   bun bench/testweb.bench.ts [seconds=5] [concurrency=64]
 */
import { startTestWeb } from "../tests/testweb/index.ts";

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 64);
const shape = { hosts: 2000, pagesPerHost: 50, linksPerPage: 48, pageBytes: 25_000 };

async function load(proxy: string): Promise<{ pagesPerSec: number; mbPerSec: number; errors: number }> {
  let pages = 0;
  let bytes = 0;
  let errors = 0;
  let x = 12345;
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const url = `http://site${x % shape.hosts}.test/page/${(x >>> 11) % shape.pagesPerHost}`;
      try {
        const r = await fetch(url, { proxy });
        const body = await r.arrayBuffer();
        if (r.status !== 200) errors++;
        pages++;
        bytes += body.byteLength;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { pagesPerSec: Math.round(pages / seconds), mbPerSec: Math.round(bytes / seconds / 1e5) / 10, errors };
}

// Same process: server and clients share the event loop (the worst case).
{
  const web = await startTestWeb(shape);
  web.clearRequests();
  const r = await load(web.proxyUrl);
  await web.close();
  console.log(`in-process server:  ${r.pagesPerSec} pages/s, ${r.mbPerSec} MB/s, ${r.errors} errors`);
}

// Separate process: the layout of the benchmark crawl (crawler in one process, the web in another).
{
  const args = [
    "--hosts",
    String(shape.hosts),
    "--pages",
    String(shape.pagesPerHost),
    "--links",
    String(shape.linksPerPage),
    "--bytes",
    String(shape.pageBytes),
  ];
  const child = Bun.spawn(["bun", new URL("../tests/testweb/main.ts", import.meta.url).pathname, ...args], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let banner = "";
  while (!banner.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("testweb exited before listening");
    banner += new TextDecoder().decode(value);
  }
  const proxy = /proxy=(\S+)/.exec(banner)?.[1];
  if (!proxy) throw new Error(`unexpected banner: ${banner}`);
  const r = await load(proxy);
  child.kill("SIGTERM");
  await child.exited;
  console.log(`separate process:   ${r.pagesPerSec} pages/s, ${r.mbPerSec} MB/s, ${r.errors} errors`);
}
