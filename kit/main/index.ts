/**
 * The process kit's core: `runMain` (help, configuration errors, signals, close steps, exit codes, the
 * same for every process), `CloseSteps`, and `StartupError` / `startStep` for start-up failures that say
 * what to do.
 */
export { ABRUPT_EXIT_CODE, runMain, runProcess, type ProcessContext, type ProcessSpec, type StopSignalName } from "./run-main.ts";
export { CloseSteps } from "./close-steps.ts";
export { StartupError, startStep } from "./startup-error.ts";
