import { escapeControls } from '../util/terminal-text.js';

/**
 * The status report as JSON, for `status --json`, /status.json and the status log's status.json:
 * every text in it written as the text output shows it (escapeControls). JSON.stringify escapes
 * C0 controls only; a device's model, firmware or error quoted raw would carry C1 controls
 * (U+0085, U+009B: a CSI to some terminals), DEL, bidirectional overrides or zero-width
 * characters to whoever pipes the JSON to a screen or a log. The escaping is idempotent: texts
 * already escaped (refused codes) stay as they are.
 */
export function statusJson(report: unknown): string {
  return `${JSON.stringify(report, (_key, v: unknown) => (typeof v === 'string' ? escapeControls(v) : v), 2)}\n`;
}
