import type { HttpHeaders } from './http.js';
import { requestFailure } from './request-failure.js';
import { outsideText, pageExcerpt, parseRetryAfter } from './text.js';

/** One punch as the seed's `punches_data` array carries it. */
export interface AttendancePunch {
  biometriccode: string;
  logDate: string;
  devicelogId: string;
}

/** What the HRMS said about one punch. */
export interface PunchResult {
  status: boolean;
  message: string;
  /**
   * The call about this punch failed after it may have reached the server (a sink that sends one
   * punch per call: src/sinks/types.ts): neither delivered nor refused, back to the queue uncharged.
   */
  unknown?: boolean;
  /** The server said, in its own structured way, that it has this punch already (a sink's own reading, never the patterns'). */
  duplicate?: boolean;
}

/**
 * The HRMS's answer to one attendance request, classified. HTTP-level problems are values,
 * never exceptions, so the deliverer handles every case in one place. Every message is
 * scrubbed of the token (and proxy credentials) and of control characters before it is here.
 */
export type AttendanceAnswer =
  /**
   * One result per punch sent, in the order sent (matched by devicelogId when the HRMS names them).
   * `overall` false: the HRMS said the request failed as a whole although it listed results.
   */
  | { kind: 'answered'; httpStatus: number; overall: boolean; results: PunchResult[] }
  /** A 2xx answer that does not fit the batch or cannot be read: it confirms nothing. */
  | { kind: 'bad-reply'; httpStatus: number; message: string }
  /** The bearer token was refused (or none could be read); nothing was processed. */
  | { kind: 'auth'; httpStatus?: number; message: string }
  /** HTTP 413, or an answer refusing the request for its size: a smaller batch may pass. */
  | { kind: 'too-large'; httpStatus: number; message: string }
  /**
   * Try the same punches again later: network error, timeout, 5xx, 408/429.
   * `afterSending`: the request may have reached the HRMS, so it may have recorded the punches.
   */
  | { kind: 'transient'; message: string; afterSending: boolean; httpStatus?: number; retryAfterMs?: number }
  /**
   * The request did not reach the attendance endpoint as it should: a redirect, 404/405, a proxy's
   * 407, a page that is not the HRMS's JSON. Says what happened and what to check, in plain words.
   */
  | { kind: 'request-failed'; httpStatus?: number; message: string }
  /** The HRMS's own answer (JSON, `status: false`) refusing the whole request, not for its size or the token. */
  /** `wordless`: the HRMS refused the request without a word of why (no message): no evidence about any punch. */
  | { kind: 'refused'; httpStatus: number; message: string; wordless?: boolean };

export interface ClassifyOptions {
  /** Case-insensitive patterns of a token refusal in a `status: false` message. */
  authPatterns: readonly RegExp[];
  /** Patterns of a refusal for the request's size (`status: false` messages); default SIZE_REFUSAL. */
  sizePatterns?: readonly RegExp[];
  /** Removes secrets from a text that came from outside. */
  scrub?: (s: string) => string;
  /** The URL requested (to name the path and a redirect's target in messages). */
  url?: string;
}

/**
 * The usual words of a refusal for the request's size ("Request Entity Too Large", "Batch exceeds
 * the maximum of 500", "too many punches in one request"): each names the request, its body or
 * the batch. A refusal about a punch ("exceeds the maximum of 4 punches per day") is no size
 * refusal: read as one, it shrank the batch to that punch and held it at the head of the queue
 * for ever (found by an adversarial trial).
 */
export const SIZE_REFUSAL = [
  /\b(request|payload|body|batch|entity|content)\b[^.;:]{0,40}\b(too (large|big|long)|exceed)/i,
  /\btoo many\b[^.;:]{0,40}\b(in|per) (the |one |a |each )?(request|batch|call|payload)\b/i,
  /\bexceed[^.;:]{0,40}\b(request|payload|body|batch) (size|limit)\b/i,
  /\bmaximum (batch|request|payload|body) size\b/i,
  /\bsize limit\b/i,
];
/** The seed's answer to a wrong path: "... provide a valid group, plugin name and API function ...". */
const ENDPOINT_PROBLEM = /valid group|plugin name|api function/i;

/** How many bytes an answer about `n` punches may have: generous per-punch messages, and a floor for pages. */
export function answerBudgetBytes(n: number): number {
  return 64 * 1024 + n * 4 * 1024;
}

/** How many JSON objects and arrays it may hold: a few per punch (a result may carry a nested object). */
function containerBudget(n: number): number {
  return 8 * n + 64;
}

/** Turns an HTTP answer to a request carrying `sent` into an AttendanceAnswer. */
export function classifyResponse(
  res: { status: number; headers: HttpHeaders; text: string },
  sent: readonly AttendancePunch[],
  o: ClassifyOptions,
): AttendanceAnswer {
  const { status, headers } = res;
  const scrub = o.scrub ?? ((s: string) => s);
  const clean = (s: string) => outsideText(s, scrub);
  const ok = status >= 200 && status < 300;

  if (status >= 300 && status < 400) return requestFailure.redirect(status, headers, o.url, clean, 'hrms.baseUrl');
  if (status === 407) return requestFailure.proxyAuth(status);
  if (status === 404 || status === 405) return requestFailure.unknownPath(status, o.url);

  // Counted before parsing: an answer with far more objects than the batch is refused unbuilt.
  const oversized = countContainers(res.text) > containerBudget(sent.length);
  const body = oversized ? undefined : parseJsonObject(res.text);
  const bodyMessage = body ? messageOf(body) : undefined;
  const message = (fallback: string) => clean(bodyMessage ?? fallback);
  const isAuthMessage = bodyMessage !== undefined && o.authPatterns.some((p) => p.test(bodyMessage));

  if (status === 401) return { kind: 'auth', httpStatus: status, message: message('HTTP 401') };
  if (status === 413) return { kind: 'too-large', httpStatus: 413, message: message('HTTP 413 request too large') };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return {
      kind: 'transient',
      httpStatus: status,
      message: bodyMessage !== undefined ? `HTTP ${status}: ${clean(bodyMessage)}` : `HTTP ${status}`,
      // A 408/429 was refused before processing; a 5xx may have been half processed.
      afterSending: status >= 500,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (!body) {
    if (ok) {
      // punchgate asks for no compression, and decodes gzip, deflate and br all the same
      // (decode-body.ts): one still compressed here did not decode, or is in another encoding,
      // and the admin is told why rather than shown its bytes.
      const encoding = headers['content-encoding'];
      const compressed = typeof encoding === 'string' && !/^\s*(identity)?\s*$/i.test(encoding);
      const why = oversized
        ? `far more elements than the ${sent.length} punches sent warrant (refused unread)`
        : compressed
          ? `a body compressed as "${clean(encoding).slice(0, 40)}" (Content-Encoding), though none was asked for: ask the HRMS administrator to send this endpoint's answers uncompressed`
          : `a body that is not a JSON object: ${snippet(res.text, clean)}`;
      return { kind: 'bad-reply', httpStatus: status, message: `HTTP ${status} with ${why}` };
    }
    return requestFailure.notTheHrms(status, res.text, clean, 'hrms.baseUrl');
  }

  const overall = readStatus(pick(body, 'status'));
  const payload = pick(body, 'payload');
  if (status === 403) return { kind: 'auth', httpStatus: status, message: message('HTTP 403') };
  if (bodyMessage !== undefined && ENDPOINT_PROBLEM.test(bodyMessage))
    return requestFailure.unknownPath(status, o.url, clean(bodyMessage));
  // `status: false` with an empty payload is the contract's failure object from a server that
  // always writes its payload (`{"status": false, "message": "Bearer token is not correct",
  // "payload": []}`): about the whole request, not a list of results. Read as a list, a revoked
  // token was a bad reply instead of AUTH FAILED, a size refusal never shrank the batch (delivery
  // stuck for good), and `check`'s empty batch passed with a refused token (found by a trial).
  // So is `status: false` saying the token is refused, whatever payload it carries: results
  // written beside it ("Bearer token is not correct" for each punch) are no refusal of a punch.
  const failureObject = overall === false && Array.isArray(payload) && (payload.length === 0 || isAuthMessage);
  if (ok && Array.isArray(payload) && !failureObject) return readPayload(status, body, payload, sent, clean);
  if (isAuthMessage) return { kind: 'auth', httpStatus: status, message: message('token refused') };
  if (overall === false) {
    const sizePatterns = o.sizePatterns ?? SIZE_REFUSAL;
    if (bodyMessage !== undefined && sizePatterns.some((p) => p.test(bodyMessage)))
      return { kind: 'too-large', httpStatus: status, message: message('refused for its size') };
    return {
      kind: 'refused',
      httpStatus: status,
      message: message(`HTTP ${status}: status false`),
      ...(bodyMessage === undefined ? { wordless: true } : {}),
    };
  }
  if (!ok) return requestFailure.notTheHrms(status, res.text, clean, 'hrms.baseUrl');
  if (overall === true && sent.length === 0) return { kind: 'answered', httpStatus: status, overall, results: [] };
  return {
    kind: 'bad-reply',
    httpStatus: status,
    message:
      overall === true
        ? `HTTP ${status}: Status true without any per-punch result for the ${sent.length} punches sent`
        : `HTTP ${status} with JSON that has no readable Status or Payload: ${snippet(res.text, clean)}`,
  };
}

/**
 * The per-punch results, checked against the batch. Anything that does not fit confirms
 * nothing: a different count, a punch named that was not sent (or twice), a status that is
 * not a boolean or its obvious string or number form.
 */
function readPayload(
  httpStatus: number,
  body: Record<string, unknown>,
  payload: unknown[],
  sent: readonly AttendancePunch[],
  clean: (s: string) => string,
): AttendanceAnswer {
  const overall = readStatus(pick(body, 'status'));
  const bad = (why: string): AttendanceAnswer => ({
    kind: 'bad-reply',
    httpStatus,
    message: `the HRMS's answer does not match the batch (${why}): nothing confirmed`,
  });
  if (overall === 'unreadable') return bad(`its overall Status ${statusWords(body)}`);
  if (payload.length !== sent.length) return bad(`${payload.length} results for ${sent.length} punches sent`);
  // Matched by devicelogId when every result names one, else by position (each name checked).
  // One pass, few allocations: a drain reads a thousand of these per request.
  let byId = payload.length > 0;
  for (const el of payload) {
    if (!el || typeof el !== 'object' || Array.isArray(el)) break;
    const id = pick(el as Record<string, unknown>, 'devicelogId');
    if (id === undefined || id === null) {
      byId = false;
      break;
    }
  }
  const order = byId ? new Map(sent.map((p, i) => [p.devicelogId, i])) : undefined;
  const results: PunchResult[] = new Array<PunchResult>(sent.length);
  // An answer repeats a few messages ("added" a thousand times): each is cleaned once, not per
  // punch (cleaning looks for every form of the token: the costliest step of reading an answer).
  const cleaned = new Map<string, string>();
  const cleanOnce = (m: string) => {
    let c = cleaned.get(m);
    if (c === undefined) cleaned.set(m, (c = clean(m)));
    return c;
  };
  for (let i = 0; i < payload.length; i++) {
    const el = payload[i];
    if (!el || typeof el !== 'object' || Array.isArray(el)) return bad(`result ${i + 1} is not an object`);
    const o = el as Record<string, unknown>;
    const status = readStatus(pick(o, 'status'));
    if (typeof status !== 'boolean') return bad(`result ${i + 1}'s status ${statusWords(o)}`);
    const id = pick(o, 'devicelogId');
    let at = i;
    if (order) {
      const found = order.get(String(id));
      if (found === undefined) return bad(`result ${i + 1} names a punch that was not sent`);
      if (results[found]) return bad('two results name the same punch');
      at = found;
    } else if (id !== undefined && id !== null && String(id) !== sent[i]!.devicelogId) {
      return bad(`result ${i + 1} names another punch than the one sent in that place`);
    }
    const p = sent[at]!;
    const code = pick(o, 'biometriccode');
    const date = pick(o, 'logDate');
    if ((code !== undefined && String(code) !== p.biometriccode) || (date !== undefined && String(date) !== p.logDate))
      return bad(`result ${i + 1} names another employee code or time than the punch it answers`);
    results[at] = { status, message: cleanOnce(messageOf(o) ?? '') };
  }
  return { kind: 'answered', httpStatus, overall: overall ?? true, results };
}

/** Two spellings of one key with different values (`"status": true, "Status": false`): the answer says both. */
const SAID_BOTH = Symbol('two spellings, two values');

/**
 * `status`, `Status`, `STATUS`...: the seed uses two spellings; accept any case. Where an object
 * has two spellings that disagree, SAID_BOTH: neither is taken (the first one found decided before,
 * so `{"status": true, "Status": false}` was a delivered punch: found by an adversarial trial).
 */
function pick(o: Record<string, unknown>, key: string): unknown {
  const lower = key.toLowerCase();
  let found: unknown;
  let seen = false;
  for (const k in o) {
    if (!Object.hasOwn(o, k) || k.toLowerCase() !== lower) continue;
    const v = o[k];
    if (!seen) {
      found = v;
      seen = true;
    } else if (!sameWord(v, found)) return SAID_BOTH;
  }
  return found;
}

/** Why a status could not be read, in words. */
function statusWords(o: Record<string, unknown>): string {
  return pick(o, 'status') === SAID_BOTH
    ? 'is given twice, spelled two ways, with two values'
    : 'is neither true nor false';
}

/** The same value, or its same text (`true` and `"true"`, `1` and `"1"`). */
function sameWord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' && typeof b !== 'object') return String(a) === String(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

function messageOf(o: Record<string, unknown>): string | undefined {
  const said = (k: string) => {
    const v = pick(o, k);
    return v === SAID_BOTH ? undefined : v;
  };
  const m = said('message') ?? said('msg') ?? said('error');
  if (typeof m === 'string') return m;
  if (m !== undefined && m !== null) return JSON.stringify(m);
  return undefined;
}

/** true/false, "true"/"false", 1/0, "1"/"0"; undefined when absent; anything else is unreadable. */
function readStatus(v: unknown): boolean | undefined | 'unreadable' {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
  }
  return 'unreadable';
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** JSON objects and arrays in `text` (brackets outside strings): what parsing it would build. */
export function countContainers(text: string): number {
  let n = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) n++;
  }
  return n;
}

function snippet(text: string, clean: (s: string) => string): string {
  const s = pageExcerpt(text, clean);
  return s === '' ? '(empty)' : `"${s}"`;
}
