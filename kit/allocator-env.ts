/**
 * The environment the crawler's Bun processes are started with, for its two allocators (mimalloc, and
 * JavaScriptCore's heap), wherever they are started: `bun run crawl` (package.json's `crawl` script sets the
 * same, in shell syntax), `cluster up`'s plans, the crawl benchmark, which runs our crawler as the script
 * does, and the scale bench.
 *
 * MIMALLOC_PURGE_DELAY=-1: mimalloc, the allocator of Bun's native memory (response bodies, gzip output,
 * socket buffers), by default gives freed pages back to the kernel 10 ms after they are freed. A crawler
 * frees and allocates the same sizes for every page, so its purge thread kept returning pages that were
 * faulted back in moments later: in a 28 s embedded crawl the purge thread alone used 2.0 CPU s (of 43),
 * and the faults are kernel time on the threads that touch the pages. With purging off, side by side on
 * the crawl benchmark (2,000 hosts, 2 cores): 0.99-1.03 ms of CPU per page in the steady state against
 * 1.12-1.17, for about 100 MB more resident memory (peak 721-781 MB against 590-674): freed memory is
 * kept for reuse, so the process holds its peak rather than growing past it. An operator's own value is
 * kept. Deno's allocator is not mimalloc; the variable means nothing there.
 *
 * A bounded delay is no middle way (bench/README.md, "A host's bytes", 2026-12-04 night): any delay of 0 or
 * more lets mimalloc purge when Bun collects, so 250 ms and 10 s both paid 44-55 page faults a page in a
 * crawl of 12,000 pages (11 with -1) and 7-17 % more CPU a page, while at a million hosts they keep only
 * what is live (RSS after the scale bench's fill about half). A crawl that must stay small sets a delay;
 * the default stays -1, and memory at scale is kept down by what the frontier holds instead.
 *
 * BUN_JSC_heapGrowthMaxIncrease=1: how far JavaScriptCore lets its heap grow past what survived the last
 * full collection before it runs the next one. On a machine of 16 GB or more its limit is (1 + this x
 * e^(-heap/RAM)) x the survivors, and Bun sets 2: about 3x for any heap far smaller than RAM (below 16 GB
 * JSC uses a flat 2x instead). Objects that outlive one young collection are only freed by a full one, so
 * with 3x the frontier's dead objects piled up to several times its live heap, and mimalloc, with purging
 * off, kept the pages of that peak for good. 1 makes it about 2x, as on a smaller machine, and stays above
 * 1.5x, below which every young collection forces a full one. Measured (bench/README.md, "A host's bytes at
 * the defaults", 2026-12-05), base and this alternating: at a million hosts and 10 million queued URLs, RSS
 * after the scale bench's fill 800-816 B a host instead of 1,226-1,294; process CPU within the runs' spread
 * (183-251 s against 210-222), though dispatch paid 8-14 % more CPU a task in both pairs; main-thread stops of
 * the same order (the longest 147-178 ms against 77-101, a handful a run above 50 ms on either). A fixed
 * crawl of 8,000 pages peaked at 398-421 MB instead of 518-582, for -1 to +5 % CPU a page (three pairs, on a
 * box that slowed run after run). Bun refuses to start on a BUN_JSC_ variable it does not know, so a renamed
 * option fails loudly (kit/allocator-env.test.ts starts it).
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MIMALLOC_PURGE_DELAY: "-1", BUN_JSC_heapGrowthMaxIncrease: "1" };

/** ALLOCATOR_ENV less the variables `outer` (the launcher's own environment) already sets. */
export function allocatorEnv(outer: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return envDefaults(ALLOCATOR_ENV, outer);
}

/**
 * The variables of `defaults` that `outer` leaves unset or empty, as the shell's `${NAME:-default}` (what
 * package.json's script does) reads them: a launcher's settings that an operator's own value overrides.
 */
export function envDefaults(
  defaults: Readonly<Record<string, string>>,
  outer: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults)) if (!outer[name]) out[name] = value;
  return out;
}
