import type { Command, Help } from 'commander';

/**
 * punchgate(1), generated from the CLI's own help (the commander program `--help` prints), so
 * that the page lists every command and option the installed version has, with the same words.
 * The sections `--help` does not have (exit status, environment, files) are written here.
 */
export interface ManPageInfo {
  version: string;
  /** YYYY-MM-DD: the date of the source (the last commit), so that a rebuild gives the same page. */
  date: string;
  /** Text replaced in help strings: the build machine's package folder -> the installed one. */
  replace?: ReadonlyArray<readonly [string, string]>;
}

/** Text for roff: backslashes and hyphens escaped, a leading dot or quote kept from being a request. */
export function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

const EXIT_STATUS: ReadonlyArray<readonly [number, string]> = [
  [0, 'success'],
  [1, 'an unexpected failure (the message says what)'],
  [65, 'bad input lines: reported with their line numbers and skipped'],
  [66, 'an input file cannot be read'],
  [74, 'the journal cannot be used: the message names the path and the fix'],
  [75, 'a temporary failure (a terminal or the HRMS unreachable, the journal busy): try again later'],
  [77, 'the HRMS refused the token'],
  [78, 'bad configuration: file:line: path (terminal name): expected, found'],
];

const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['PUNCHGATE_CONFIG', 'the config file when --config is not given (default /etc/punchgate/punchgate.yaml)'],
  ['PUNCHGATE_HRMS_TOKEN', 'the HRMS bearer token, instead of hrms.tokenFile'],
  ['PUNCHGATE_TERMINAL_<NAME>_PASSWORD', "a Hikvision terminal's password, instead of its passwordFile"],
  ['HTTPS_PROXY, NO_PROXY', 'the proxy to the HRMS, unless hrms.proxy says otherwise'],
];

const FILES: ReadonlyArray<readonly [string, string]> = [
  ['/etc/punchgate/punchgate.yaml', 'the config (a conffile: your edits survive upgrades)'],
  ['/etc/punchgate/token', 'the HRMS token, one line, root:punchgate 0640'],
  ['/var/lib/punchgate/journal.db', 'the punch journal (SQLite): every punch until the HRMS has it'],
  ['/var/lib/punchgate/status.txt', 'the status log, rewritten every minute by punchgate run'],
  ['/usr/lib/punchgate', "punchgate, its Node.js runtime and its native modules (the box's Node.js is not used)"],
  ['/usr/lib/systemd/system/punchgate.service', 'the unit: systemctl enable --now punchgate'],
];

/**
 * A command's arguments and options as tagged paragraphs. `-h, --help`, which every command has,
 * is said once under OPTIONS, not under each command.
 */
function optionsOf(cmd: Command, help: Help, fix: (s: string) => string, withHelp: boolean): string[] {
  const out: string[] = [];
  for (const a of help.visibleArguments(cmd)) {
    out.push('.TP', `.I ${roff(help.argumentTerm(a))}`, roff(fix(help.argumentDescription(a)) || a.name()));
  }
  for (const o of help.visibleOptions(cmd)) {
    if (o.long === '--help' && !withHelp) continue;
    out.push('.TP', `.B ${roff(help.optionTerm(o))}`, roff(fix(help.optionDescription(o))));
  }
  return out;
}

/** The roff source of punchgate(1). */
export function manPage(program: Command, info: ManPageInfo): string {
  const help = program.createHelp();
  const fix = (s: string) => (info.replace ?? []).reduce((t, [from, to]) => t.split(from).join(to), s);
  const lines: string[] = [
    `.TH PUNCHGATE 1 "${info.date}" "punchgate ${info.version}" "punchgate manual"`,
    '.SH NAME',
    `punchgate \\- ${roff(program.description())}`,
    '.SH SYNOPSIS',
    '.B punchgate',
    `[\\fIoptions\\fR] \\fIcommand\\fR [\\fIarguments\\fR]`,
    '.SH DESCRIPTION',
    roff(
      'punchgate collects punches from time-attendance terminals (ZKTeco over TCP or UDP, push terminals, ' +
        'Hikvision over ISAPI, serial readers, USB exports), keeps each one in a journal on disk before ' +
        'anything else, and delivers them to the HRMS. It runs as the systemd service punchgate ' +
        '(punchgate run); the other commands are for the admin, run as the service user: ' +
        'sudo -u punchgate punchgate status.',
    ),
    '.PP',
    roff(
      'This page is generated from the help of the installed version: punchgate COMMAND --help says the same. ' +
        'The guides (configuration, terminals, the HRMS contract) are in /usr/share/doc/punchgate.',
    ),
    '.SH OPTIONS',
    ...optionsOf(program, help, fix, true),
    '.SH COMMANDS',
  ];
  const walk = (cmd: Command) => {
    for (const sub of help.visibleCommands(cmd)) {
      if (sub.name() === 'help') continue;
      // The usage names the command's parents: "punchgate sim hrms [options]".
      lines.push(
        `.SS "${roff(help.commandUsage(sub))}"`,
        roff(fix(help.commandDescription(sub))),
        ...optionsOf(sub, help, fix, false),
      );
      walk(sub);
    }
  };
  walk(program);
  lines.push('.SH EXIT STATUS');
  for (const [code, text] of EXIT_STATUS) lines.push('.TP', `.B ${code}`, roff(text));
  lines.push('.SH ENVIRONMENT');
  for (const [name, text] of ENVIRONMENT) lines.push('.TP', `.B ${roff(name)}`, roff(text));
  lines.push('.SH FILES');
  for (const [path, text] of FILES) lines.push('.TP', `.I ${roff(path)}`, roff(text));
  lines.push('.SH SEE ALSO', '.BR systemctl (1),', '.BR journalctl (1),', '.I /usr/share/doc/punchgate/');
  return `${lines.join('\n')}\n`;
}
