/**
 * Small readers of ISAPI answers: JSON when the device honours `?format=json`, the XML it
 * otherwise sends, and the ResponseStatus that write requests answer with.
 */
import { HikApiError } from './errors.js';
import type { HikResponse } from './http.js';
import { apiError } from './http-errors.js';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Card and employee numbers written as bare JSON numbers of 16 digits or more (20-digit card
 * numbers exist) lose digits in a JavaScript number: they are read as the text they are.
 */
const LONG_ID = /("(?:cardNo|employeeNo|employeeNoString)"\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g;

/** JSON text as a device writes it (compact, indented, or laid out with TABs by cJSON), parsed; throws when it is not JSON. */
export function parseDeviceJson(text: string): unknown {
  return JSON.parse(text.replace(LONG_ID, '$1"$2"'));
}

/**
 * A JSON event as a terminal posts or streams it, or undefined when it is not a JSON object. The
 * alert itself (`{"eventType": ...}`), or the same wrapped in `{"EventNotificationAlert": {...}}`,
 * the root the XML form has (posted so by some firmware, per an integration guide that quotes it):
 * unwrapped, so that every reader of an event sees the alert.
 */
export function eventJsonOf(text: string): Json | undefined {
  let o: unknown;
  try {
    o = parseDeviceJson(text);
  } catch {
    return undefined;
  }
  if (!isObject(o)) return undefined;
  return o.eventType === undefined && isObject(o.EventNotificationAlert) ? o.EventNotificationAlert : o;
}

/** The JSON object of an answer, or undefined when it is not JSON. */
export function jsonOf(res: HikResponse): Json | undefined {
  const t = res.text.trimStart();
  if (!t.startsWith('{')) return undefined;
  try {
    const v = parseDeviceJson(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The text of the first `<name>` element of an XML answer. */
export function xmlField(text: string, name: string): string | undefined {
  const m = new RegExp(`<(?:\\w+:)?${name}\\b[^>]*>([^<]*)</`, 'i').exec(text);
  return m ? decodeXml(m[1]!.trim()) : undefined;
}

/**
 * The five predefined entities and character references (`&#49;`, `&#x31;`), in one pass (so
 * `&amp;lt;` stays `&lt;`). No other entity exists without a DTD, and a DTD is never read: no
 * expansion can grow a value. A reference to no character is left as written.
 */
function decodeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, e: string) => {
    if (e[0] !== '#') return e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : "'";
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A field of a JSON object or an XML answer, as text. */
export function field(res: HikResponse, obj: Json | undefined, name: string): string | undefined {
  if (obj) {
    const v = obj[name];
    return v === undefined || v === null ? undefined : String(v);
  }
  return xmlField(res.text, name);
}

/**
 * Throws the device's error unless the answer is a success: HTTP 2xx, and a ResponseStatus
 * (when there is one) with statusCode 1 (OK).
 */
export function expectOk(res: HikResponse, path: string): HikResponse {
  if (res.status < 200 || res.status > 299) throw apiError(res, path);
  const obj = jsonOf(res);
  const code = obj ? obj.statusCode : xmlField(res.text, 'statusCode');
  if (code !== undefined && code !== null && String(code) !== '1') throw apiError(res, path);
  return res;
}

/** The JSON answer of a successful request (parsed once); throws when the answer is an error or not JSON. */
export function expectJson(res: HikResponse, path: string): Json {
  if (res.status < 200 || res.status > 299) throw apiError(res, path);
  const obj = jsonOf(res);
  if (!obj) throw new HikApiError(`${path.split('?')[0]}: the device's answer is not JSON`, res.status, 'notJson');
  if (obj.statusCode !== undefined && obj.statusCode !== null && String(obj.statusCode) !== '1') {
    throw apiError(res, path);
  }
  return obj;
}
