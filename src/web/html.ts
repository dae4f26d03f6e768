import { printable } from '../util/terminal-text.js';

/**
 * HTML built from strings, escaped by default: every value put into an `html` template is
 * escaped unless it is itself the result of `html` (a fragment already built this way). So
 * text from outside (HRMS messages, terminal serial numbers and errors) can never become markup,
 * and is shown as the terminal does (printable: control and invisible characters, bidirectional
 * overrides among them, written as visible escapes; at most MAX_SHOWN characters).
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Longest text shown in one place of the page (an alert, an error). */
const MAX_SHOWN = 2000;

type Value = Html | string | number | null | undefined | false | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map((x: Value) => render(x)).join('');
  return escapeHtml(printable(String(v), MAX_SHOWN));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}

/**
 * Words that quote commands between backticks, as the status log writes them ("then `punchgate
 * punches retry`"), with each quoted command set as code: a new-user trial saw the backticks
 * themselves on the page. Unpaired backticks (a device's text may hold one) are shown as they are.
 */
export function withCommands(words: string): Html {
  const parts = words.split('`');
  if (parts.length < 3 || parts.length % 2 === 0) return html`${words}`;
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
