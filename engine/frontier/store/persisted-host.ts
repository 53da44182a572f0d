/**
 * What the hosts table keeps of one host (its politeness state, today's page count, the operator's gap
 * override and the frontier run that saved it), as JSON small enough to rewrite after every fetch, and the check that turns a stored or
 * received JSON text back into that shape. The same text travels in a partition handoff, so the check also
 * guards what another node sends. A text that is not the shape is refused with the field at fault: a host's
 * politeness state is never guessed.
 */
import { isFetchErrorKind } from "../../../core/model/index.ts";
import type { HostState } from "../../../core/politeness/index.ts";
import type { DailyCounter } from "../../../core/traps/index.ts";

export interface PersistedHost {
  state: HostState;
  pagesToday: DailyCounter | null;
  /** Operator override of the host's minimum gap; absent in rows written before overrides existed. */
  minGapOverrideMs?: number;
  /** The frontier run that saved it (see ActiveHosts.load); absent in rows written before runs were kept. */
  run?: string;
  /** What rendering the host's pages found (core/render host-memory.ts, 1..255); absent: never rendered. */
  renderMemory?: number;
}

const NUMBERS = [
  "nextAllowedAt",
  "gapMs",
  "crawlDelayMs",
  "throttleMs",
  "consecutiveFailures",
  "failureRate",
  "fetches",
  "failures",
  "throttles",
] as const satisfies ReadonlyArray<keyof HostState>;
const BOOLEANS = ["inFlight", "paused"] as const satisfies ReadonlyArray<keyof HostState>;
const NUMBERS_OR_NULL = ["inFlightSince", "lastStatus"] as const satisfies ReadonlyArray<keyof HostState>;

/** Reads a host's stored JSON; throws an Error naming the first field that is not what it must be. */
export function parsePersistedHost(json: string): PersistedHost {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`host state is not JSON (${(error as Error).message})`);
  }
  if (!isRecord(value)) throw new Error("host state is not an object");
  const state = value.state;
  if (!isRecord(state)) throw new Error("host state has no `state` object");
  for (const key of NUMBERS) if (!isNumber(state[key])) throw new Error(`host state: state.${key} must be a number`);
  for (const key of BOOLEANS) if (typeof state[key] !== "boolean") throw new Error(`host state: state.${key} must be true or false`);
  for (const key of NUMBERS_OR_NULL) {
    if (state[key] !== null && !isNumber(state[key])) throw new Error(`host state: state.${key} must be a number or null`);
  }
  if (state.lastError !== null && !isFetchErrorKind(state.lastError)) {
    throw new Error(`host state: state.lastError must be a fetch error kind or null, got ${JSON.stringify(state.lastError)}`);
  }
  const pagesToday = value.pagesToday ?? null;
  if (pagesToday !== null && !(isRecord(pagesToday) && typeof pagesToday.day === "string" && isNumber(pagesToday.count))) {
    throw new Error("host state: pagesToday must be { day, count } or null");
  }
  const override = value.minGapOverrideMs;
  if (override !== undefined && !isNumber(override)) throw new Error("host state: minGapOverrideMs must be a number");
  const run = value.run;
  if (run !== undefined && typeof run !== "string") throw new Error("host state: run must be a string");
  const renderMemory = value.renderMemory;
  if (renderMemory !== undefined && !(Number.isInteger(renderMemory) && (renderMemory as number) >= 0 && (renderMemory as number) <= 255))
    throw new Error("host state: renderMemory must be an integer from 0 to 255");
  const host: PersistedHost = { state: state as unknown as HostState, pagesToday: pagesToday as DailyCounter | null };
  if (override !== undefined) host.minGapOverrideMs = override;
  if (run !== undefined) host.run = run;
  if (renderMemory) host.renderMemory = renderMemory as number;
  return host;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
