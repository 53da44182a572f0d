/**
 * Runs an async step every `intervalMs`, never two at once (the next run is scheduled when the previous
 * one ends), reporting failures to `onError` instead of stopping. `poke()` asks for a run out of turn,
 * when something happened that the step should see now rather than at its next turn: it runs
 * `debounceMs` after the first poke of a burst (every poke until then shares that run), or, when poked
 * while it runs, once more `debounceMs` after that run ends (the run under way may have read too early);
 * the regular turns go on `intervalMs` after the last run, so a run is never further apart than that.
 * `stop()` cancels the next run and waits for a running one, so a caller can close what the step uses
 * right after.
 */
export interface Ticker {
  poke(): void;
  stop(): Promise<void>;
}

export interface TickerOptions {
  /** How long a poke waits for more pokes before the run it asks for; default 0. */
  debounceMs?: number;
}

export function every(
  intervalMs: number,
  step: () => Promise<unknown>,
  onError: (error: unknown) => void,
  opts: TickerOptions = {},
): Ticker {
  const debounceMs = opts.debounceMs ?? 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the scheduled run is due (performance.now()). */
  let dueAt = Infinity;
  let running: Promise<void> | undefined;
  let pokedWhileRunning = false;
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    dueAt = performance.now() + ms;
    timer = setTimeout(run, ms);
  };
  const run = () => {
    timer = undefined;
    dueAt = Infinity;
    pokedWhileRunning = false;
    running = (async () => {
      try {
        await step();
      } catch (error) {
        onError(error);
      }
    })().then(() => {
      running = undefined;
      if (!stopped) schedule(pokedWhileRunning ? debounceMs : intervalMs);
    });
  };
  run();
  return {
    poke() {
      if (stopped) return;
      if (running) pokedWhileRunning = true;
      // A run due within the debounce already serves this poke.
      else if (dueAt > performance.now() + debounceMs) schedule(debounceMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
