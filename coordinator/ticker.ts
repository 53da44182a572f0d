/**
 * Runs an async step every `intervalMs`, never two at once (the next run is scheduled when the previous
 * one ends), reporting failures to `onError` instead of stopping. `stop()` cancels the next run and waits
 * for a running one, so a caller can close what the step uses right after.
 */
export interface Ticker {
  stop(): Promise<void>;
}

export function every(intervalMs: number, step: () => Promise<unknown>, onError: (error: unknown) => void): Ticker {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = (async () => {
      try {
        await step();
      } catch (error) {
        onError(error);
      }
    })().then(() => {
      if (!stopped) timer = setTimeout(run, intervalMs);
    });
  };
  run();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
