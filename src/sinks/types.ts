import type { AttendanceAnswer } from '../hrms/answer.js';

/**
 * What every sink (an HRMS punchgate delivers to) takes and answers. The seed HRMS (src/hrms)
 * takes a batch in one request; Frappe HR (src/sinks/frappe) and Odoo (src/sinks/odoo) take one
 * punch per call, made by their sender with a few calls in flight. Either way a sender answers
 * for the whole batch with an AttendanceAnswer: `answered` with one result per punch in the order
 * given (a result's `unknown` marks a punch whose call failed after it may have reached the
 * server: it goes back to the queue uncharged), or a failure of the request as a whole (auth,
 * transient, request-failed, ...), which charges no punch.
 */

/** Which way a person went, as sinks take it (break-out and overtime-out are `out`; see src/punch/direction.ts). */
export type Direction = 'in' | 'out';

/** One punch as a sink sender receives it. */
export interface SinkPunch {
  /** The journal's stable id of the punch (the seed's devicelogId). */
  devicelogId: string;
  biometricCode: string;
  /** The terminal's wall clock, 'YYYY-MM-DD HH:mm:ss', exactly as recorded. */
  logTime: string;
  /** The terminal's name in the config. */
  terminal: string;
  /** The device's serial ('' when not known). */
  device: string;
  /** The direction, where the terminal's `direction` setting gives one. */
  direction?: Direction;
  /** The terminal's IANA time zone (its `timezone`, else the box's), for sinks that store UTC. */
  timezone: string;
}

export interface SinkSendOptions {
  /** The sink's credential as its TokenProvider read it (seed: the bearer token; Frappe: `key:secret`; Odoo: the API key). */
  token: string;
  signal?: AbortSignal;
}

/**
 * What a sink's settings check found, each in words for the admin: right (what was found), wrong
 * (`setting`: the sink's setting, `value`: what to set it to), or not known (and why).
 */
export type SettingsVerdict =
  | { kind: 'right'; said: string }
  | { kind: 'wrong'; setting: string; problem: string; value: string }
  /** The settings are right, but the HRMS's data will misplace punches: said with its fix. */
  | { kind: 'doubtful'; said: string; problem: string; fix: string }
  | { kind: 'unchecked'; said: string };

/** Anything that delivers a batch to one sink. */
export interface SinkSender {
  send(punches: readonly SinkPunch[], opts: SinkSendOptions): Promise<AttendanceAnswer>;
  close?(): Promise<void>;
  /** How requests travel (directly or through which proxy), without credentials. */
  route?(): string;
  /**
   * For `check` only: read-only questions about settings that an empty batch cannot prove (a
   * Frappe sink's employeeFieldname), asked once. Never writes to the server; never throws.
   */
  checkSettings?(opts: SinkSendOptions): Promise<SettingsVerdict>;
}
