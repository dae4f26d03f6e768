import { answer } from './http-body.js';
import { checkCookie } from './security-handlers.js';
import { noteContact, type PushRequest, type ReceiverContext } from './handler-kit.js';
import { utcOffsetMinutes } from './options.js';

/**
 * `GET /iclock/rtdata?type=time`: newer push firmware (Security PUSH, and attendance firmware
 * after a `SET OPTIONS DateTime` command) asks the server's time. The answer, as ZKTeco's
 * Security PUSH document (appendix 5) and the servers built from it give it:
 * `DateTime=<UTC in ZKTeco's packed form>,ServerTZ=<+HHMM>`. The packed form counts every month
 * as 31 days from 2000-01-01: a plain Unix time in its place (some servers send one) would set
 * the clock decades wrong; a local time in its place would shift it by the zone.
 *
 * The zone told is the terminal's own `timezone` (the gateway's when none is set: the same the
 * option block's `TimeZone=` already tells it), never the gateway's when they differ, so that the
 * terminal keeps the wall clock its punches are read in.
 */

/** ZKTeco's packed time: ((year-2000)*12*31 + (month-1)*31 + day-1) * 86400 + seconds of the day. */
export function packedTime(utcMs: number): number {
  const d = new Date(utcMs);
  const days = (d.getUTCFullYear() - 2000) * 12 * 31 + d.getUTCMonth() * 31 + (d.getUTCDate() - 1);
  return days * 86_400 + d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds();
}

/** `+0800`, `-0330`, `+0545`: a UTC offset in minutes as ±HHMM. */
export function offsetHHMM(minutes: number): string {
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${hh}${mm}`;
}

export function serverTimeAnswer(now: number, timeZone: string | undefined): string {
  return `DateTime=${packedTime(now)},ServerTZ=${offsetHHMM(utcOffsetMinutes(now, timeZone))}`;
}

export function handleRtdata(ctx: ReceiverContext, p: PushRequest): void {
  checkCookie(ctx, p);
  noteContact(ctx, p.terminal, p.address);
  const type = (p.query.get('type') ?? '').toLowerCase();
  if (type !== 'time') {
    // Nothing else of rtdata is known: said plainly (the terminal goes on with its other requests).
    ctx.logger.debug({ terminal: p.terminal.cfg.name, type: type.slice(0, 20) }, 'rtdata of an unknown type');
    return answer(p.req, p.res, 400, 'ERROR: unknown rtdata type');
  }
  answer(p.req, p.res, 200, serverTimeAnswer(ctx.clock.now(), p.terminal.cfg.timezone));
}
