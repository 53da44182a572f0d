/**
 * The dashboard's data, pure: the JSON shapes both dashboards read (types.ts), built from node records by
 * one function for the cluster and for `crawl` alike (build.ts), the fetch outcomes by kind (outcomes.ts)
 * and the recent pages/s and bytes/s (rate-history.ts).
 */
export type {
  AddressRow,
  Dashboard,
  HistogramSummary,
  HostBoard,
  HostReport,
  HostRow,
  JobRow,
  NodeRow,
  Outcomes,
  PolitenessSummary,
  RenderingSummary,
  RatePoint,
  RingRegion,
} from "./types.ts";
export { buildDashboard, runningTotals, type DashboardInput, type DashboardMember } from "./build.ts";
export { errorsOf, outcomesOf } from "./outcomes.ts";
export { RateHistory, type RateHistoryOptions } from "./rate-history.ts";
export { DASHBOARD_JOB_ROWS, jobRows } from "./jobs.ts";
