export {
  buildStatus,
  type BackupStatus,
  type ConfigStatus,
  type DaemonLiveness,
  type LiveFacts,
  type StatusProbes,
  type StatusReport,
  type TerminalStatus,
} from './report.js';
export { failingWords, formatStatus, resultPlace } from './format.js';
export { statusJson } from './json.js';
export { notAlertedYet, notWellYet, summaryLine, terminalShown } from './summary.js';
export { probeDaemon, statusJsonPath } from './daemon-probe.js';
export { LatestReport } from './latest.js';
export { ALERT, alertLine, type Alert } from './alert-words.js';
