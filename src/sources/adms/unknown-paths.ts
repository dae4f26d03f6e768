import type { Logger } from '../../util/logger.js';
import { LogBudget } from './log-budget.js';

/** One path from one address is logged at most this often. */
const PATH_LOG_MS = 10 * 60_000;
/** Paths remembered for that (a scanner trying thousands stays bounded). */
const MAX_REMEMBERED = 200;
/** The longest path quoted in the log. */
const MAX_PATH = 120;

/**
 * Requests to a path the receiver does not answer (404). A Hikvision terminal whose HTTP
 * Listening URL names no listening terminal (renamed, `listen: true` not set, a typo) posts there
 * for ever; it was answered 404 with no word, so its admin saw the terminal post and punchgate say
 * nothing. Logged once in a while per path and address, few lines in all (anyone on the LAN can
 * try paths); the path only, never the query (it may carry a key).
 */
export class UnknownPaths {
  private readonly logged = new Map<string, number>();
  private readonly budget = new LogBudget(10, 60_000);

  constructor(private readonly logger: Logger) {}

  seen(pathname: string, method: string, address: string, now: number): void {
    const path = pathname.slice(0, MAX_PATH);
    const key = `${path.toLowerCase()} ${address}`;
    const last = this.logged.get(key);
    if (last !== undefined && now - last < PATH_LOG_MS) return;
    const held = this.budget.take(now);
    if (held === undefined) return;
    if (this.logged.size >= MAX_REMEMBERED) this.logged.clear();
    this.logged.set(key, now);
    const extra = held > 0 ? { notLogged: held } : {};
    const listen = /^\/listen\/([^/]+)\/([^/]*)/i.exec(path);
    this.logger.warn(
      { address, path, method, ...extra },
      listen
        ? `${address} posts to ${path}, where no terminal listens (answered 404): if it is your ${listen[1]} terminal, set listen: true on the terminal of that name, or correct the URL on the terminal (punchgate terminals listen NAME --print shows it)`
        : `${address} asks ${method} ${path}, which no terminal protocol uses (answered 404): if it is a terminal, correct the server address or path set on it`,
    );
  }
}
