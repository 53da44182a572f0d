export {};
/**
 * The project's test command. Runs `bun test` over every test file and ends the output with one line
 * `N passed, M failed`, which CI reads; bun itself prints its summary as `N pass` / `N fail` on stderr.
 * The exit code is bun's, so a failure anywhere fails the run.
 *
 * Before that line it prints each failed test's error again (what bun wrote to stderr since the test
 * before it, last lines only): a CI log is often read from its end, and bun's own summary names the failed
 * tests without saying why.
 */
const args = process.argv.slice(2);
const proc = Bun.spawn(["bun", "test", ...args], {
  stdout: "inherit",
  stderr: "pipe",
  stdin: "ignore",
  env: process.env,
});

const REPEAT_FAILURES = 6;
const REPEAT_LINES = 30;
let passed = 0;
let failed = 0;
/** stderr lines since the last test result or file header: the running test's own error output. */
let sinceLastTest: string[] = [];
const failures: { name: string; lines: string[] }[] = [];
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
if (failures.length > 0) {
  console.log(`\n== why the failed tests failed (the last ${REPEAT_LINES} lines bun printed before each, first ${REPEAT_FAILURES})`);
  for (const f of failures.slice(0, REPEAT_FAILURES)) console.log(`\n-- ${f.name}\n${f.lines.join("\n")}`);
  if (failures.length > REPEAT_FAILURES) console.log(`\n-- and ${failures.length - REPEAT_FAILURES} more, above`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

function scan(line: string): void {
  if (/^\(fail\) /.test(line)) {
    // bun lists the failed tests again in its summary; those repeats carry no output of their own.
    if (!failures.some((f) => f.name === line)) failures.push({ name: line, lines: sinceLastTest });
    sinceLastTest = [];
  } else if (/^\((pass|skip|todo)\) /.test(line) || /^\S.*\.test\.[jt]sx?:$/.test(line)) sinceLastTest = [];
  else {
    sinceLastTest.push(line);
    if (sinceLastTest.length > REPEAT_LINES) sinceLastTest.shift();
  }
  const pass = /^\s*(\d+) pass\s*$/.exec(line);
  if (pass) passed = Number(pass[1]);
  const fail = /^\s*(\d+) fail\s*$/.exec(line);
  if (fail) failed = Number(fail[1]);
}
