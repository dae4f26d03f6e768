import { settleFrom } from './command-results.js';
import { errText, type PushRequest, type ReceiverContext } from './handler-kit.js';

/**
 * A `DATA QUERY` answered on `/iclock/querydata?...&cmdid=N`: the upload is the command's result.
 * Some firmware (a BioFace A1) posts no `devicecmd` result for such a query, so without this
 * the command would stay "sent" and be handed out again and again. Called once the upload was
 * stored and answered 200. Only the terminal's trusted address gets here (trust-gate.ts), and it
 * settles only a command handed to that address, as devicecmd does.
 */
export function settleQueryAnswer(ctx: ReceiverContext, p: PushRequest): void {
  const id = p.query.get('cmdid');
  // Not answered (the body never came whole) or not 200 (asked to retry): the command waits.
  if (id === null || !p.res.headersSent || p.res.statusCode !== 200 || !/^[A-Za-z0-9]{1,16}$/.test(id)) return;
  const { cfg } = p.terminal;
  try {
    settleFrom(ctx, p, [{ id, returnCode: 0, cmd: 'DATA' }], ' (answered on querydata)');
  } catch (e) {
    // The command stays sent and is handed out again later (a query is harmless to repeat).
    ctx.logger.warn(
      { terminal: cfg.name, id, err: errText(e) },
      'cannot record a query answer as its command result now',
    );
  }
}
