export {};
/**
 * The project's test command. Runs `bun test` over every test file and ends the output with one line
 * `N passed, M failed`, which CI reads; bun itself prints its summary as `N pass` / `N fail` on stderr.
 * The exit code is bun's, so a failure anywhere fails the run.
 */
const args = process.argv.slice(2);
const proc = Bun.spawn(["bun", "test", ...args], {
  stdout: "inherit",
  stderr: "pipe",
  stdin: "ignore",
  env: process.env,
});

let passed = 0;
let failed = 0;
let pending = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  const text = decoder.decode(chunk, { stream: true });
  process.stderr.write(text);
  pending += text;
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) scan(line);
}
scan(pending);
const code = await proc.exited;
// A crash before bun's summary leaves both counts at zero; never report that as a clean run.
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

function scan(line: string): void {
  const pass = /^\s*(\d+) pass\s*$/.exec(line);
  if (pass) passed = Number(pass[1]);
  const fail = /^\s*(\d+) fail\s*$/.exec(line);
  if (fail) failed = Number(fail[1]);
}
