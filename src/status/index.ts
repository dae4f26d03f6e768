export {
  buildStatus,
  type DaemonLiveness,
  type LiveFacts,
  type StatusProbes,
  type StatusReport,
  type TerminalStatus,
} from './report.js';
export { formatStatus } from './format.js';
export { probeDaemon, statusJsonPath } from './daemon-probe.js';
export { LatestReport } from './latest.js';
