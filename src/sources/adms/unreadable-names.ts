/**
 * User names of a push terminal's upload that are no text in its character set (`encoding`):
 * OPERLOG/USERINFO (attendance PUSH) and the `user` table (Security PUSH) say them the same way.
 */
import type { AdmsTerminalConfig } from '../../config/terminals.js';
import type { PushUser } from '../../journal/types.js';
import type { ReceiverContext } from './handler-kit.js';
import { firstFew } from '../../util/first-few.js';

/**
 * Names that are no text in the terminal's character set (kept with U+FFFD): said once per upload,
 * with the PINs, since sync-users never writes them back and the roster shows them unknown.
 */
export function reportUnreadableNames(ctx: ReceiverContext, cfg: AdmsTerminalConfig, users: readonly PushUser[]): void {
  const pins = users.filter((u) => u.name.includes('\ufffd')).map((u) => u.pin);
  if (pins.length === 0) return;
  const encoding = cfg.encoding ?? 'utf-8';
  ctx.logger.warn(
    { terminal: cfg.name, pins: pins.slice(0, 20), count: pins.length, encoding },
    `${cfg.name}: ${pins.length} user name(s) are no text in ${encoding} (PIN ${firstFew(pins, 5)}): kept as unknown and never sent back to the terminal. If it shows names in another character set (GBK, Big5, windows-1256...), set encoding: for it in the config`,
  );
}
