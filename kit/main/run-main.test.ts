import { expect, test } from "bun:test";
import { ConfigError } from "../../core/config/index.ts";
import { ExitCalled, memoryRuntime } from "./memory-runtime.ts";
import { runMain, runProcess, StartupError, startStep, type ProcessContext, type ProcessSpec } from "./index.ts";

interface Demo {
  steps: string[];
  logFormat?: "json" | "text";
}

/** A process whose `run` is the test's; configure reads `--fail-config` and `--step NAME`. */
function demo(run: (ctx: ProcessContext<Demo>) => Promise<number>, extra: Partial<ProcessSpec<Demo>> = {}): ProcessSpec<Demo> {
  return {
    name: "demo",
    usage: () => "usage: demo [--step NAME]\n",
    configure(argv) {
      if (argv.includes("--fail-config")) throw new ConfigError("invalid demo configuration:\n  - count: must be at least 1");
      return { steps: argv.filter((_, i) => argv[i - 1] === "--step") };
    },
    logFormat: (c) => c.logFormat,
    abruptStopCost: "nothing is lost",
    run,
    ...extra,
  };
}

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test("runMain - --help prints the usage on stdout and exits 0 without reading the configuration", async () => {
  let ran = false;
  const rt = memoryRuntime(["--step", "x", "--help"]);
  const code = await runProcess(
    demo(async () => ((ran = true), 0), {
      configure: () => {
        throw new Error("configure must not run");
      },
    }),
    rt,
  );
  expect({ code, ran, stdout: rt.written.stdout, stderr: rt.written.stderr }).toEqual({
    code: 0,
    ran: false,
    stdout: "usage: demo [--step NAME]\n",
    stderr: "",
  });
  expect(
    (await runProcess(
      demo(async () => 0),
      memoryRuntime(["-h"]),
    )) === 0,
  ).toBe(true);
});

test("runMain - a configuration error prints the message and the usage on stderr and exits 2, before anything runs", async () => {
  let ran = false;
  const rt = memoryRuntime(["--fail-config"]);
  const code = await runProcess(
    demo(async () => ((ran = true), 0)),
    rt,
  );
  expect(code).toBe(2);
  expect(ran).toBe(false);
  expect(rt.written.stderr).toBe("demo: invalid demo configuration:\n  - count: must be at least 1\n\nusage: demo [--step NAME]\n");
  expect(rt.written.stdout).toBe("");
  expect(rt.handlers).toBe(0);
});

test("runMain - a configuration error found while running also exits 2, after closing what was opened", async () => {
  const closed: string[] = [];
  const rt = memoryRuntime();
  const code = await runProcess(
    demo(async (ctx) => {
      ctx.onClose("store", () => closed.push("store"));
      throw new ConfigError("cannot read seeds file seeds.txt: ENOENT");
    }),
    rt,
  );
  expect(code).toBe(2);
  expect(closed).toEqual(["store"]);
  expect(rt.written.stderr).toContain("demo: cannot read seeds file seeds.txt: ENOENT\n\nusage: demo");
});

test("runMain - close steps run last registered first, and a failing step is logged without stopping the others", async () => {
  const order: string[] = [];
  const rt = memoryRuntime([], {}, { terminal: false });
  const code = await runProcess(
    demo(async (ctx) => {
      ctx.onClose("lock", () => order.push("lock"));
      ctx.onClose("store", async () => {
        order.push("store");
        throw new Error("disk gone");
      });
      ctx.onClose("nats", () => order.push("nats"));
      ctx.onClose("bus", () => {
        order.push("bus");
        throw new TypeError("");
      });
      return 0;
    }),
    rt,
  );
  expect(code).toBe(0);
  expect(order).toEqual(["bus", "nats", "store", "lock"]);
  const lines = jsonLines(rt.written.stderr);
  expect(lines.map((l) => [l.level, l.msg, l.step, l.error.message])).toEqual([
    ["warn", "closing bus failed; closing the rest", "bus", "TypeError with no message"],
    ["warn", "closing store failed; closing the rest", "store", "disk gone"],
  ]);
  expect(rt.handlers).toBe(0);
});

test("runMain - the first signal asks for a clean stop, and the process exits with the code run returns", async () => {
  const rt = memoryRuntime([], {}, { terminal: true });
  const closed: string[] = [];
  const done = runProcess(
    demo(
      async (ctx) => {
        ctx.onClose("server", () => closed.push(`server after ${ctx.stopSignal.reason}`));
        const signal = await ctx.stopRequested;
        return signal === "SIGTERM" ? 0 : 9;
      },
      { stopNote: () => "tasks in flight get 5s" },
    ),
    rt,
  );
  await Promise.resolve();
  expect(rt.handlers).toBe(1);
  rt.signal("SIGTERM");
  expect(await done).toBe(0);
  expect(closed).toEqual(["server after SIGTERM"]);
  expect(rt.exits).toEqual([]);
  // On a terminal the log is text.
  expect(rt.written.stderr).toMatch(/^\S+ info demo: SIGTERM: stopping \(tasks in flight get 5s\); a second SIGTERM exits at once\n$/);
});

test("runMain - a second signal exits at once with 130, saying what that costs", async () => {
  const rt = memoryRuntime();
  let release: (() => void) | undefined;
  const done = runProcess(
    demo(async (ctx) => {
      await ctx.stopRequested;
      await new Promise<void>((resolve) => (release = resolve)); // a slow clean stop
      return 0;
    }),
    rt,
  );
  await Promise.resolve();
  rt.signal("SIGINT");
  expect(() => rt.signal("SIGINT")).toThrow(ExitCalled);
  expect(rt.exits).toEqual([130]);
  const lines = jsonLines(rt.written.stderr);
  expect(lines.at(-1)).toMatchObject({ level: "warn", component: "demo", msg: "SIGINT again: exiting now; nothing is lost" });
  while (!release) await Promise.resolve();
  release();
  await done;
});

test("runMain - a start-up failure exits 1 with its message, after closing what was opened", async () => {
  const rt = memoryRuntime();
  const closed: string[] = [];
  const code = await runProcess(
    demo(async (ctx) => {
      ctx.onClose("lock", () => closed.push("lock"));
      await startStep("connect to NATS at nats://127.0.0.1:1", "check that nats-server runs there, or give --nats-url", async () => {
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
      });
      return 0;
    }),
    rt,
  );
  expect(code).toBe(1);
  expect(closed).toEqual(["lock"]);
  const [line] = jsonLines(rt.written.stderr);
  expect(line).toMatchObject({
    level: "error",
    msg: "cannot connect to NATS at nats://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1; check that nats-server runs there, or give --nats-url",
    error: { code: "ECONNREFUSED" },
  });
  await expect(startStep("x", "y", () => Promise.reject(new StartupError("own words")))).rejects.toThrow(/^own words$/);
});

test("runMain - an unexpected error exits 1 with the error in the log line; configure failing that way exits 1 too", async () => {
  const rt = memoryRuntime();
  expect(
    await runProcess(
      demo(async () => {
        throw new RangeError("bad index");
      }),
      rt,
    ),
  ).toBe(1);
  expect(jsonLines(rt.written.stderr)[0]).toMatchObject({
    msg: "demo stopped on an unexpected error",
    error: { name: "RangeError", message: "bad index" },
  });

  const denied = memoryRuntime();
  const code = await runProcess(
    demo(async () => 0, {
      configure: () => {
        throw new Error('Requires env access to "CRAWL_NODE_ID", run again with the --allow-env flag');
      },
    }),
    denied,
  );
  expect(code).toBe(1);
  expect(denied.written.stderr).toBe(
    'demo: cannot start: Error: Requires env access to "CRAWL_NODE_ID", run again with the --allow-env flag\n',
  );
});

test("runMain - the configured log format wins over the terminal", async () => {
  const rt = memoryRuntime([], {}, { terminal: true });
  await runProcess(
    demo(
      async (ctx) => {
        ctx.log.info("hello", { n: 1 });
        return 0;
      },
      { configure: () => ({ steps: [], logFormat: "json" }) },
    ),
    rt,
  );
  expect(jsonLines(rt.written.stderr)).toMatchObject([{ level: "info", component: "demo", msg: "hello", n: 1 }]);
});

test("runMain - waits for the output to be flushed, then exits with the code", async () => {
  const rt = memoryRuntime();
  let flushed = false;
  rt.flush = async () => {
    flushed = true;
  };
  const exited = runMain(
    demo(async (ctx) => {
      ctx.out("result\n");
      return 3;
    }),
    rt,
  );
  await expect(exited).rejects.toEqual(new ExitCalled(3));
  expect(flushed).toBe(true);
  expect(rt.written.stdout).toBe("result\n");
});

test("runMain - a stop signal while the output is flushed is held: the process still exits with its code; a second exits at once", async () => {
  const rt = memoryRuntime();
  let releaseFlush!: () => void;
  rt.flush = () => new Promise<void>((resolve) => (releaseFlush = resolve));
  const exited = runMain(
    demo(async (ctx) => {
      ctx.out("summary\n");
      return 0;
    }),
    rt,
  );
  await until(() => releaseFlush !== undefined);
  // The run is over: without a handler now, the system's default action would end the process by the signal.
  expect(rt.handlers).toBe(1);
  rt.signal("SIGINT");
  expect(rt.exits).toEqual([]);
  releaseFlush();
  await expect(exited).rejects.toEqual(new ExitCalled(0));
  expect(rt.written.stdout).toBe("summary\n");

  const rt2 = memoryRuntime();
  let flushing = false;
  rt2.flush = () => ((flushing = true), new Promise<void>(() => {})); // a reader that never takes the output
  const stuck = runMain(
    demo(async () => 4),
    rt2,
  ).catch((e: unknown) => e);
  await until(() => flushing);
  rt2.signal("SIGTERM");
  expect(() => rt2.signal("SIGTERM")).toThrow(new ExitCalled(4));
  expect(rt2.exits).toEqual([4]);
  void stuck;
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await Bun.sleep(1);
  if (!condition()) throw new Error("condition never held");
}
