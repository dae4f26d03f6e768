import { printable } from '../../util/terminal-text.js';
import type { Logger } from '../../util/logger.js';
import { LogBudget } from './log-budget.js';

/** One address is logged at most this often. */
const ADDRESS_LOG_MS = 10 * 60_000;
/** Addresses remembered for that (a scanner from many addresses stays bounded). */
const MAX_REMEMBERED = 200;
/** The longest request line quoted in the log. */
const MAX_LINE = 80;

/** What the HTTP parser gave up on: the error Node hands to `clientError`. */
export interface ParserError {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
}

/**
 * Whether a connection's first bytes are a TLS handshake (a record of type 22, version 3.x): a
 * terminal whose *HTTPS* switch is on, talking to a receiver that speaks plain HTTP. Published
 * setups show such firmware (ZKTeco MB160, MB10-VL) pushing over HTTPS to cloud servers.
 */
export function isTlsHandshake(raw: Buffer | undefined): boolean {
  return raw !== undefined && raw.length >= 3 && raw[0] === 0x16 && raw[1] === 0x03 && raw[2]! <= 0x04;
}

/**
 * Requests the receiver's HTTP parser could not read at all (answered 400 by Node itself, before
 * any handler): until now with no word, so a device whose firmware writes HTTP the parser refuses
 * looked switched off. Logged once in a while per address, few lines in all (anyone on the LAN can
 * send bytes): the parser's reason and the request's method and path, never its query or headers
 * (they may carry a key).
 */
export class UnreadableRequests {
  private readonly logged = new Map<string, number>();
  private readonly budget = new LogBudget(10, 60_000);

  constructor(private readonly logger: Logger) {}

  /** `afterRequest`: the connection carried a request before these bytes (they follow its body). */
  seen(address: string, e: ParserError, now: number, afterRequest = false): void {
    const last = this.logged.get(address);
    if (last !== undefined && now - last < ADDRESS_LOG_MS) return;
    const held = this.budget.take(now);
    if (held === undefined) return;
    if (this.logged.size >= MAX_REMEMBERED) this.logged.clear();
    this.logged.set(address, now);
    const request = requestLineOf(e.rawPacket);
    const why = `${e.reason ?? 'unreadable'} (${e.code ?? 'HPE'})`;
    const fields = {
      address,
      parser: e.code,
      ...(request ? { request } : {}),
      ...(held > 0 ? { notLogged: held } : {}),
    };
    if (afterRequest) {
      // The packet starts with the request these bytes followed: quoting it would blame that one.
      this.logger.warn(
        { ...fields, afterRequest },
        `a device at ${address} sent bytes the push receiver cannot read as HTTP right after the body of a request${request ? ` ("${request}")` : ''} on the same connection: ${why}; most likely its Content-Length was shorter than the body it sent. Answered 400, nothing of them kept, and an upload whose answer was lost so is not journalled (the terminal sends it again). If it is a terminal, or a proxy between it and this box, it miscounts its bodies: note its model and firmware version, and update the firmware`,
      );
      return;
    }
    this.logger.warn(
      fields,
      `a device at ${address} sent a request the push receiver cannot read as HTTP: ${why}${request ? ` in "${request}"` : ''}; answered 400 and nothing of it kept. If it is a terminal, its firmware writes HTTP punchgate does not accept: note its model and firmware version, and update the firmware`,
    );
  }
}

/** The request's method and path (the query left out), printable and short; '' when none is seen. */
export function requestLineOf(raw: Buffer | undefined): string {
  if (!raw || raw.length === 0) return '';
  const head = raw.subarray(0, 512).toString('latin1');
  const end = head.search(/[\r\n]/);
  const line = end === -1 ? head : head.slice(0, end);
  const m = /^([A-Za-z]{1,16}) +([^?#]*)/.exec(line);
  return m ? printable(`${m[1]} ${m[2]!.trimEnd()}`, MAX_LINE) : '';
}
