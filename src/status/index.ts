export { buildStatus, type StatusReport, type TerminalStatus } from './report.js';
export { formatStatus } from './format.js';
export { LatestReport } from './latest.js';
