import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { startNetLab, sweepLeftovers, type NetLab } from "./netns.ts";

const labs: NetLab[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const lab of labs.splice(0)) lab.close();
});

function lab(): NetLab {
  const l = startNetLab();
  labs.push(l);
  return l;
}

/** An echo server on `host`, answering each line with the same line. */
async function echoServer(host: string): Promise<number> {
  const server = createServer((c) => {
    c.on("error", () => {});
    c.on("data", (d) => c.write(d));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return (server.address() as { port: number }).port;
}

/**
 * A client inside the namespace: connects to HOST:PORT and, each 100 ms, sends a line and prints what came
 * back and when; prints "connected" and any error with its time. Runs for `ms`.
 */
function clientIn(ns: { exec(cmd: readonly string[]): string[] }, host: string, port: number, ms: number) {
  const script = `
    const net = require("node:net");
    const t0 = Date.now();
    const c = net.connect({ host: ${JSON.stringify(host)}, port: ${port} });
    let n = 0;
    c.on("connect", () => { console.log("connected", Date.now() - t0); setInterval(() => c.write("x" + n++ + "\\n"), 100); });
    c.on("data", (d) => console.log("echo", Date.now() - t0));
    c.on("error", (e) => console.log("error", e.code, Date.now() - t0));
    setTimeout(() => process.exit(0), ${ms});`;
  return Bun.spawn(ns.exec([process.execPath, "-e", script]), { stdout: "pipe", stderr: "pipe" });
}

const linesOf = async (p: ReturnType<typeof clientIn>) => (await new Response(p.stdout).text()).trim().split("\n");

describe("network lab", () => {
  test("a process in a namespace reaches a server on a lab address, and a cut silences the link until it is restored", async () => {
    const l = lab();
    const address = l.serverAddress();
    const port = await echoServer(address);
    const ns = l.namespace();
    const client = clientIn(ns, address, port, 3_000);
    await Bun.sleep(800);
    ns.cut([address]);
    expect(ns.cuts).toEqual([address]);
    await Bun.sleep(1_200);
    ns.restore();
    const lines = await linesOf(client);
    const times = (kind: string) => lines.filter((l) => l.startsWith(kind)).map((l) => Number(l.split(" ").at(-1)));
    expect(lines[0]).toStartWith("connected");
    // No error: the cut is silent, as a partition is (no reset, no unreachable).
    expect(lines.filter((l) => l.startsWith("error"))).toEqual([]);
    // Echoes before the cut, none for about a second, then again once restored.
    const echoes = times("echo");
    let longestSilence = 0;
    for (let i = 1; i < echoes.length; i++) longestSilence = Math.max(longestSilence, echoes[i]! - echoes[i - 1]!);
    expect(longestSilence).toBeGreaterThan(900);
    expect(echoes.at(-1)!).toBeGreaterThan(2_000);
  }, 20_000);

  test("a cut of one address leaves another reachable, and a new connection across the cut waits instead of failing", async () => {
    const l = lab();
    const [a, b] = [l.serverAddress(), l.serverAddress()];
    const [pa, pb] = [await echoServer(a), await echoServer(b)];
    const ns = l.namespace();
    ns.cut([a]);
    const toA = clientIn(ns, a, pa, 2_500);
    const toB = clientIn(ns, b, pb, 1_000);
    await Bun.sleep(1_500);
    ns.restore();
    const [linesA, linesB] = await Promise.all([linesOf(toA), linesOf(toB)]);
    expect(linesB[0]).toStartWith("connected");
    // Connected only after the restore (its SYN is sent again after 1 s), and no error meanwhile.
    expect(linesA.filter((l) => l.startsWith("error"))).toEqual([]);
    expect(Number(linesA.find((l) => l.startsWith("connected"))?.split(" ")[1])).toBeGreaterThan(1_400);
  }, 20_000);

  test("a full cut reaches the host's processes too, and the host reaches a server inside the namespace when restored", async () => {
    const l = lab();
    const ns = l.namespace();
    // A server inside the namespace, on its own address; the host dials it.
    const inside = Bun.spawn(
      ns.exec([
        process.execPath,
        "-e",
        `require("node:net").createServer((c) => c.end("hello")).listen(7777, ${JSON.stringify(ns.address)}, () => console.log("up"))`,
      ]),
      { stdout: "pipe", stderr: "pipe" },
    );
    try {
      const reader = inside.stdout.getReader();
      await reader.read();
      const dial = (timeoutMs: number) =>
        new Promise<string>((resolve) => {
          const socket = require("node:net").connect({ host: ns.address, port: 7777 });
          let got = "";
          const timer = setTimeout(() => (socket.destroy(), resolve(`timeout:${got}`)), timeoutMs);
          socket.on("data", (d: Buffer) => (got += d.toString()));
          socket.on("end", () => (clearTimeout(timer), resolve(got)));
          socket.on("error", (e: { code?: string }) => (clearTimeout(timer), resolve(`error:${e.code}`)));
        });
      expect(await dial(2_000)).toBe("hello");
      ns.cut();
      expect(await dial(1_500)).toBe("timeout:");
      ns.restore();
      expect(await dial(4_000)).toBe("hello");
    } finally {
      inside.kill("SIGKILL");
    }
  }, 20_000);

  test("close removes every namespace, veth and address; the sweep removes what a dead process left", async () => {
    const l = lab();
    const address = l.serverAddress();
    const ns = l.namespace();
    const show = () => Bun.spawnSync(["sh", "-c", "ip netns list; ip -o link show; ip -o addr show dev lo"]).stdout.toString();
    expect(show()).toContain(ns.name);
    expect(show()).toContain(address);
    l.close();
    expect(show()).not.toContain(ns.name);
    expect(show()).not.toContain(address);
    expect(show()).not.toContain(`${ns.name.replace("crawler-test-", "cth")}`);

    // A lab of a process that is gone: made by a child that exits without closing it... by SIGKILL.
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { startNetLab } = require(${JSON.stringify(`${import.meta.dir}/netns.ts`)}); const l = startNetLab(); console.log(l.serverAddress(), l.namespace().name); setInterval(() => {}, 1000);`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const [leftAddress, leftNs] = new TextDecoder()
      .decode((await child.stdout.getReader().read()).value)
      .trim()
      .split(" ");
    child.kill("SIGKILL");
    await child.exited;
    expect(show()).toContain(leftNs!);
    sweepLeftovers();
    expect(show()).not.toContain(leftNs!);
    expect(show()).not.toContain(`${leftAddress}/32`);
  }, 20_000);
});
