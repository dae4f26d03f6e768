/** The Frappe HR / ERPNext sink (`kind: frappe`): see docs/sinks-frappe.md. */
export { FrappeSender, type FrappeSenderDeps } from './sender.js';
export {
  checkinMethod,
  checkinUrl,
  FRAPPE_DEFAULTS,
  optionsProblem,
  shiftTypeUrl,
  type FrappeSinkOptions,
} from './options.js';
export { DUPLICATE_PREFIX } from './call-answer.js';
export {
  FrappeShiftSync,
  setLastSync,
  shiftSyncTargets,
  type ShiftSyncAnswer,
  type ShiftSyncRule,
  type ShiftSyncTarget,
  type TerminalProgress,
} from './shift-sync.js';
