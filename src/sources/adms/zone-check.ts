import { errText, type ReceiverContext } from './handler-kit.js';
import type { PushTerminal } from './directory.js';
import { offsetLabel as label, utcOffsetMinutes } from './options.js';

/**
 * A push terminal learns its zone (`TimeZone=`) only from the option block, which it fetches
 * when it starts, or when it is sent `CHECK`. After a DST change, or a changed `timezone` in the
 * config, it would keep the old offset until it restarts. So the offset told is recorded at each
 * option fetch, and when today's differs the terminal is sent `CHECK`, once per new offset.
 *
 * Why `CHECK` is safe: the terminal fetches the option block again, whose stamps are those saved
 * with the last durable upload (never 0, see handleOptions), so it uploads only what came after.
 * Should firmware send its whole log again instead, every punch is journalled once: punches are
 * unique on device, time and code, and a repeated one is counted a duplicate, not delivered again.
 */

/** The terminal's offset now, in minutes east of UTC (its configured zone, else the gateway's). */
export const zoneNow = (ctx: ReceiverContext, t: PushTerminal): number =>
  utcOffsetMinutes(ctx.clock.now(), t.cfg.timezone);

/** Records the offset an option block told the terminal (a failure only costs a later CHECK). */
export function noteZoneTold(ctx: ReceiverContext, t: PushTerminal, minutes: number): void {
  try {
    ctx.journal.zoneTold(t.cfg.name, t.cfg.serial, minutes);
  } catch (e) {
    ctx.logger.debug({ terminal: t.cfg.name, err: errText(e) }, 'cannot record the zone told now');
  }
}

/**
 * At a command poll: queues `CHECK` when the offset told at the terminal's last option fetch is
 * not today's, unless one was queued for today's already (a terminal that refuses it is not
 * asked at every poll). A terminal never told (attendance protocol not seen since this was
 * recorded, or Security PUSH) is left alone.
 */
export function askIfZoneStale(ctx: ReceiverContext, t: PushTerminal): void {
  const { name, serial } = t.cfg;
  try {
    const zone = ctx.journal.zone(name, serial);
    if (!zone) return;
    const now = zoneNow(ctx, t);
    if (zone.told === now || zone.askedFor === now) return;
    const c = ctx.journal.askZoneCheck(name, serial, now);
    ctx.logger.info(
      { terminal: name, id: c.id, told: label(zone.told), now: label(now) },
      `terminal ${name} was told ${label(zone.told)} when it last read its options; its zone is ${label(now)} now: asked to read them again (CHECK)`,
    );
  } catch (e) {
    // The next poll asks again.
    ctx.logger.debug({ terminal: name, err: errText(e) }, 'cannot compare the zone told now');
  }
}
