import { isIP } from 'node:net';
import type { Command } from 'commander';
import { admsListenAddress } from '../../config/adms.js';
import { isLoopbackHost } from '../../config/hrms.js';
import { sourceDepsFor } from '../../sources/deps.js';
import {
  boxHttpHost,
  HTTP_HOSTS_PATH,
  httpHostsXml,
  parseHttpHostsXml,
  withBoxHost,
  type HttpHostSetting,
} from '../../sources/hikvision/http-hosts.js';
import { HikvisionPoller } from '../../sources/hikvision/index.js';
import { expectOk } from '../../sources/hikvision/isapi.js';
import { listenPath } from '../../sources/listen.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { printable } from '../../util/terminal-text.js';
import { action, journalErrorOf, loadContext, openJournal } from '../common.js';
import { escapeControls } from '../../util/terminal-text.js';
import { terminalNamesHint } from '../terminal-names.js';

interface ListenOptions {
  address?: string;
  print?: boolean;
}

const describe = (h: HttpHostSetting) =>
  `${h.protocolType.toLowerCase()}://${h.host}:${h.portNo}${h.url} (${h.parameterFormatType}, slot ${h.id})`;

/**
 * `punchgate terminals listen NAME`: points a Hikvision terminal's HTTP Listening (httpHosts) at
 * the box's receiver, so that it posts its events as they happen; `--print` only shows the
 * setting to make by hand (the terminal is not written). The other hosts of the terminal are
 * kept; the box takes the slot that already points at it, else an empty one, else slot 1.
 */
export function registerHikvisionListen(terminals: Command): void {
  terminals
    .command('listen')
    .description(
      "point a Hikvision terminal's HTTP Listening (httpHosts) at this box, so it posts its events (--print: only show the setting to make by hand)",
    )
    .argument('<name>', 'terminal name (kind: hikvision)')
    .option(
      '--address <address>',
      "the box's address as the terminal reaches it (default: the host of adms.listen, when it is an address)",
    )
    .option('--print', 'print the setting and where to make it; the terminal is not written')
    .action(action((name: string, opts: ListenOptions, cmd: Command) => runListen(cmd, name, opts)));
}

async function runListen(cmd: Command, name: string, opts: ListenOptions): Promise<number> {
  const ctx = loadContext(cmd, { logToStderr: true });
  const t = ctx.config.terminals.find((x) => x.name === name);
  if (!t || t.kind !== 'hikvision')
    throw new ExitError(
      `no hikvision terminal named "${escapeControls(name)}" in the config${terminalNamesHint(
        name,
        ctx.config.terminals.filter((x) => x.kind === 'hikvision'),
        'hikvision terminals',
      )}`,
      EXIT.CONFIG,
    );
  if (!ctx.config.adms)
    throw new ExitError('the receiver is off: set adms.listen (e.g. 0.0.0.0:8081) first, then reload', EXIT.CONFIG);
  const at = admsListenAddress(ctx.config.adms);
  const wildcard = at.host === '0.0.0.0' || at.host === '::' || at.host === '';
  const address = opts.address ?? (wildcard ? undefined : at.host);
  if (!address || (isIP(address) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(address)))
    throw new ExitError(
      `give the box's address as the terminal reaches it: --address 192.168.1.10 (adms.listen is ${ctx.config.adms.listen})`,
      EXIT.CONFIG,
    );
  // A terminal on this box (a simulator) reaches a loopback address; one on the network never does.
  const terminalHost = new URL(t.url).hostname;
  const terminalHere = isLoopbackHost(terminalHost);
  if (!terminalHere && isLoopbackHost(address))
    throw new ExitError(
      `${address} is this box's loopback address: terminal ${t.name} (${terminalHost}) cannot reach it. ` +
        (isLoopbackHost(at.host)
          ? `Set adms.listen to 0.0.0.0:${at.port} (or this box's network address), reload, and run again with `
          : 'Run again with ') +
        `the address the terminal reaches the box at: --address 192.168.1.10`,
      EXIT.CONFIG,
    );
  const path = listenPath('hikvision', t.name);
  const out = (s: string) => process.stdout.write(s);
  if (!t.listen)
    process.stderr.write(
      `note: set listen: true for ${t.name} in the config and reload: until then the box does not take its posts\n`,
    );
  if (opts.print) {
    const mine = boxHttpHost('1', address, at.port, path);
    out(
      [
        `Set on terminal ${t.name}, in its web page: Configuration > Network > Advanced Settings > HTTP Listening`,
        `(some firmware: Network Service > HTTP(S) > HTTP Listening):`,
        `  Destination IP or host name: ${address}`,
        `  URL: ${path}`,
        `  Port: ${at.port}`,
        `  Protocol: HTTP`,
        `Or PUT this to ${HTTP_HOSTS_PATH} (it replaces the terminal's hosts; slot 1 here):`,
        '',
        httpHostsXml([mine]),
      ].join('\n'),
    );
    return EXIT.OK;
  }
  const journal = openJournal(ctx);
  try {
    const poller = new HikvisionPoller(t, sourceDepsFor(journal, ctx.logger, ctx.clock));
    const r = await poller
      .withClient(async (c) => {
        const current = parseHttpHostsXml(expectOk(await c.http.request('GET', HTTP_HOSTS_PATH), HTTP_HOSTS_PATH).text);
        const next = withBoxHost(current, address, at.port, path);
        expectOk(
          await c.http.request('PUT', HTTP_HOSTS_PATH, {
            body: httpHostsXml(next.hosts),
            contentType: 'application/xml',
          }),
          HTTP_HOSTS_PATH,
        );
        const after = parseHttpHostsXml(expectOk(await c.http.request('GET', HTTP_HOSTS_PATH), HTTP_HOSTS_PATH).text);
        return { ...next, after };
      })
      .catch((e: unknown) => {
        throw new ExitError(
          `${t.name}: ${printable(ctx.secrets.scrub(e instanceof Error ? e.message : String(e)), 500)}`,
          EXIT.TEMPFAIL,
        );
      });
    const ours = r.after.find((h) => h.url.toLowerCase() === path.toLowerCase() && h.host === address);
    if (r.replaced) out(`replaced: ${printable(describe(r.replaced), 300)}\n`);
    if (!ours)
      throw new ExitError(
        `${t.name} accepted the setting but does not show it back: set it by hand (punchgate terminals listen ${t.name} --print)`,
        EXIT.TEMPFAIL,
      );
    out(`terminal ${t.name} now posts its events to ${printable(describe(ours), 300)}\n`);
    out(`${reachNote(at.host, at.port, t.name, terminalHost, terminalHere)}punchgate check says when it has posted\n`);
    return EXIT.OK;
  } catch (e) {
    throw e instanceof ExitError ? e : journalErrorOf(journal.path, e);
  } finally {
    journal.close();
  }
}

/**
 * What the admin still does for the terminal's posts to arrive: open the port to it, or, with the
 * receiver bound to loopback, make it listen where the terminal reaches it. Nothing for a terminal
 * on this box (a simulator): no firewall stands between them.
 */
function reachNote(
  listenHost: string,
  port: number,
  name: string,
  terminalHost: string,
  terminalHere: boolean,
): string {
  if (terminalHere) return '';
  if (isLoopbackHost(listenHost))
    return `adms.listen is ${listenHost}:${port}, this box's loopback address: terminal ${name} (${terminalHost}) cannot reach it unless a proxy on this box passes its posts on; otherwise set adms.listen to 0.0.0.0:${port} and reload. `;
  return `open port ${port}/tcp on this box to ${terminalHost}; `;
}
