/**
 * Reading Frappe's JSON answers. Sources (frappe/frappe, version-15): frappe/app.py handle_exception
 * answers an /api/ request's exception with report_error(http_status_code) from
 * frappe/utils/response.py: a JSON object with `exc_type` (the exception's class name), with
 * `exception` ("frappe.exceptions.ValidationError: <message>") and `exc` (the traceback) only when
 * the site allows tracebacks, and `_server_messages`: a JSON *string* of an array of JSON strings,
 * each an object {message, title, indicator, raise_exception} (what frappe.throw / msgprint said).
 * A success is {"message": <the method's return>}: for add_log_based_on_employee_field, the new
 * Employee Checkin document ({name, employee, time, log_type, ...}).
 */

export interface FrappeBody {
  /** The exception's class name (ValidationError, AuthenticationError, QueryTimeoutError...). */
  excType?: string;
  /** What frappe.throw / msgprint said, HTML removed, in order. */
  messages: string[];
  /**
   * The `href` of every link in those messages, as sent: a link's path is never translated, its
   * words are (a refusal is said in the site's or the API user's language).
   */
  links: string[];
  /** The `exception` line without its "module.Class: " prefix, when the site sends it. */
  exception?: string;
  /** `message` of a success: the returned document's name, when it is one. */
  docName?: string;
  /** Its `time`, when it says one (an Employee Checkin's). */
  docTime?: string;
  /** `message` as plain text when it is a string (older sites, a guest page's JSON). */
  messageText?: string;
}

/** Longest body parsed (a traceback-bearing error is a few kB; a document a few hundred bytes). */
const MAX_PARSED = 256 * 1024;

/** The answer as Frappe's JSON, or undefined when it is not a JSON object (an HTML page, a proxy's text). */
export function readFrappeBody(text: string): FrappeBody | undefined {
  if (text.length > MAX_PARSED) return undefined;
  const obj = parseObject(text);
  if (!obj) return undefined;
  const raw = serverMessages(obj._server_messages);
  const out: FrappeBody = { messages: raw.map(plainText).filter(Boolean), links: raw.flatMap(hrefs) };
  if (typeof obj.exc_type === 'string') out.excType = obj.exc_type;
  if (typeof obj.exception === 'string') {
    const line = obj.exception.trim().split('\n').pop() ?? '';
    // "frappe.exceptions.ValidationError: text" or "pymysql.err.OperationalError: (1205, '...')".
    out.exception = plainText(line.replace(/^[\w.]+(Error|Exception|Expired|Stopped|Timeout)\b:?\s*/, ''));
    if (!out.excType) {
      const cls = /^(?:[\w]+\.)*(\w+)(?::|$)/.exec(line)?.[1];
      if (cls) out.excType = cls;
    }
  }
  const m = obj.message;
  if (m && typeof m === 'object' && !Array.isArray(m)) {
    const { name, time } = m as Record<string, unknown>;
    if (typeof name === 'string' && name !== '') out.docName = name;
    if (typeof time === 'string') out.docTime = time;
  } else if (typeof m === 'string') out.messageText = plainText(m);
  return out;
}

/** Frappe's own words for a refusal: its messages, else the exception's text, else the class name. */
export function frappeSaid(b: FrappeBody): string | undefined {
  if (b.messages.length > 0) return b.messages.join(' ');
  if (b.exception) return b.exception;
  if (b.messageText) return b.messageText;
  return b.excType;
}

/** `_server_messages`: '["{\"message\": \"...\"}", ...]', each inner string JSON again; plain strings kept. HTML as sent. */
function serverMessages(v: unknown): string[] {
  if (typeof v !== 'string') return [];
  let list: unknown;
  try {
    list = JSON.parse(v);
  } catch {
    return [v];
  }
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const el of list.slice(0, 20)) {
    let msg: unknown = el;
    if (typeof el === 'string') {
      try {
        const inner: unknown = JSON.parse(el);
        msg = inner && typeof inner === 'object' ? (inner as Record<string, unknown>).message : inner;
      } catch {
        msg = el;
      }
    } else if (el && typeof el === 'object') msg = (el as Record<string, unknown>).message;
    if (typeof msg === 'string') out.push(msg);
  }
  return out;
}

/** The `href` values of the links in `html` (at most a few: a message carries one or two). */
function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]{0,500}?href\s*=\s*["']([^"']{1,500})["']/gi)].slice(0, 8).map((m) => m[1]!);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * Frappe's messages carry HTML: "<Br>" and a desk link to the document ("...same timestamp.<Br><a
 * href=...>EMP-CKIN-...</a>"), "<b>" around names, entities. Tags go (a line break becomes a
 * space), entities are decoded once, runs of white space become one space.
 */
export function plainText(html: string): string {
  return html
    .replace(/<\s*br\s*\/?>/gi, ' ')
    .replace(/<[^>]{0,500}>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (all, e: string) => {
      const k = e.toLowerCase();
      if (k in ENTITIES) return ENTITIES[k]!;
      if (k.startsWith('#x')) return safeChar(parseInt(k.slice(2), 16)) ?? all;
      if (k.startsWith('#')) return safeChar(Number(k.slice(1))) ?? all;
      return all;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

function safeChar(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A date-time's digits to the second ('2026-11-02 08:00:01', '2026-11-02T08:00:01.000000' alike). */
export function secondsOf(t: string): string {
  return t.replace(/\D/g, '').slice(0, 14);
}
