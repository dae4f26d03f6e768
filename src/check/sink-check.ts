import type { Config } from '../config/schema.js';
import { odooAccountHint, sinksOf, sinksOfTerminal, type SinkConfig } from '../config/sinks.js';
import { compilePatterns } from '../delivery/outcomes.js';
import { BUILT_IN_MAKERS, buildSinkSender, SinkKindUnavailableError, sinkTokens } from '../sinks/build.js';
import { buildProblem } from '../sinks/build-problem.js';
import type { SinkSender } from '../sinks/types.js';
import type { Secrets } from '../util/secrets.js';
import { errorText, fail, pass, warn, type CheckResult } from './types.js';
import { addressShown } from '../config/web-address.js';
import { boxIanaZone } from '../util/box-zone.js';
import { noTlsFix, speaksNoTls } from '../hrms/no-tls.js';
import { certificateFix, certificateTrouble } from '../hrms/certificate-trouble.js';

/**
 * The sinks beyond the seed HRMS (issue 32; that one is checked as `hrms`, hrms-check.ts): each gets
 * an empty batch, as the HRMS check sends, which records nothing: whether it is reached and takes
 * its credential. One line per sink, `sink NAME`.
 */
/**
 * What a sink's empty probe shows, said as it is: the seed HRMS takes an empty batch; Frappe and
 * Odoo only say whether they take the credential, not whether the user may write check-ins (a
 * new-user trial saw "accepted ... an empty test batch" for a Frappe user who may not).
 */
/** The settings of a sink's kind that an answer can prove wrong (Odoo names a database or field it lacks). */
const SETTINGS: Record<string, string> = {
  hrms: 'check its baseUrl',
  frappe: 'check its baseUrl and method',
  odoo: 'check its baseUrl, database, login and employeeField (the message says which)',
};

/**
 * What the probe proved, and what it could not (said after the time it took: "... shows at the
 * first delivery in 23 ms" read as a delivery timed, found by a new-user trial).
 */
const PROBED: Record<string, { done: string; later?: string }> = {
  hrms: { done: 'accepted the credential (an empty test batch: nothing recorded)' },
  frappe: {
    done: 'took the API key and secret (frappe.auth.get_logged_user: nothing recorded)',
    later: 'whether its user may create Employee Checkins shows at the first delivery',
  },
  odoo: {
    done: "took the login and API key and read an employee's code field (nothing recorded)",
    later: 'whether its user may write attendances shows at the first delivery',
  },
};

export function checkOtherSinks(
  config: Config,
  deps: { env: NodeJS.ProcessEnv; secrets: Secrets },
): Promise<CheckResult>[] {
  // hrms-check.ts checks the hrms: block, else the first sink of kind hrms: every other sink here.
  const seed = config.hrms ? undefined : config.sinks.find((s) => s.kind === 'hrms');
  return sinksOf(config)
    .slice(config.hrms ? 1 : 0)
    .filter((s) => s !== seed)
    .map((s) => checkSink(s, config, deps));
}

async function checkSink(
  sink: SinkConfig,
  config: Config,
  deps: { env: NodeJS.ProcessEnv; secrets: Secrets },
): Promise<CheckResult> {
  const name = `sink ${sink.name}`;
  const files =
    sink.kind === 'frappe'
      ? `${sink.apiKeyFile} and ${sink.apiSecretFile}`
      : sink.kind === 'odoo'
        ? sink.apiKeyFile
        : (sink.tokenFile ?? `sinks[${sink.name}].tokenFile`);
  let token: string;
  try {
    token = sinkTokens(sink, deps.secrets).get();
  } catch (e) {
    return fail(name, `no usable credential: ${errorText(e)}`, `put the credential in ${files}`);
  }
  let sender: SinkSender;
  try {
    sender = buildSinkSender(sink, {
      authPatterns: compilePatterns(config.delivery.patterns.authFailure),
      env: deps.env,
      makers: BUILT_IN_MAKERS,
    });
  } catch (e) {
    if (e instanceof SinkKindUnavailableError)
      return warn(name, e.message, 'its punches wait in the journal: install a punchgate that delivers to it');
    const { problem, fix } = buildProblem(e, `sinks[${sink.name}]`);
    return fail(name, problem, fix);
  }
  const started = Date.now();
  try {
    const a = await sender.send([], { token, signal: AbortSignal.timeout(sink.timeoutMs) });
    switch (a.kind) {
      case 'answered': {
        const probed = PROBED[sink.kind] ?? PROBED.hrms!;
        // Settings the empty batch cannot prove (a Frappe sink's employeeFieldname): read once, nothing written.
        const v = await sender.checkSettings?.({ token, signal: AbortSignal.timeout(sink.timeoutMs) });
        const took = `${probed.done}${v && v.kind !== 'wrong' ? ` and ${v.said}` : ''} in ${Date.now() - started} ms`;
        const said = `${addressShown(sink.baseUrl)} (${sink.kind}) ${took}${probed.later ? `; ${probed.later}` : ''}`;
        if (v?.kind === 'wrong')
          return fail(
            name,
            `${addressShown(sink.baseUrl)} (${sink.kind}) ${probed.done}; but ${v.problem}`,
            `set sinks[${sink.name}].${v.setting} to ${v.value}`,
          );
        if (v?.kind === 'doubtful') return warn(name, `${said}; but ${v.problem}`, v.fix);
        const zones = sink.kind === 'frappe' && !sink.timezone ? zonesOfTerminals(config, sink.name) : [];
        if (zones.length > 1)
          return warn(
            name,
            `${said}; but its terminals keep ${zones.length} time zones (${zones.join('; ')}) and Frappe stores each time as sent, in the site's zone: some check-ins are off by the difference`,
            `set sinks[${sink.name}].timezone to the site's zone (Frappe: System Settings → Time Zone): punchgate then converts each punch to it`,
          );
        return pass(name, said);
      }
      case 'auth':
        return fail(
          name,
          `${addressShown(sink.baseUrl)} refused the credential (${a.message})`,
          `put a valid credential in ${files} (re-read without a restart)` +
            (sink.kind === 'odoo' ? `; ${odooAccountHint(sink.name)}` : ''),
        );
      case 'transient': {
        // Down, restarting or overloaded (a proxy's 502-504, 429), or nothing there: no setting of
        // the sink's is wrong for that (a new-user trial was sent to check "baseUrl, database, login
        // and employeeField" for an Odoo that was down). Odoo's own errors (a field it lacks) are
        // transient to the sender too: those keep the settings' words below.
        const down = down5xx(a.httpStatus);
        if (down)
          return fail(
            name,
            `${addressShown(sink.baseUrl)} is up but failing (${a.message})`,
            'the server or a proxy in front of it is down, restarting or overloaded: try again later, or ask its administrator; punchgate run keeps the punches and retries',
          );
        if (a.httpStatus === undefined && UNREACHABLE.test(a.message))
          return fail(
            name,
            `cannot reach ${addressShown(sink.baseUrl)}: ${a.message}`,
            tlsFix(a.message, sink) ??
              'is the server up, and is the way from this box to it open (a firewall, a proxy)? check its baseUrl; punchgate run keeps the punches and retries',
          );
        return settingsFail(name, sink, a.message);
      }
      default:
        return settingsFail(name, sink, a.message);
    }
  } catch (e) {
    return fail(
      name,
      `cannot reach ${addressShown(sink.baseUrl)}: ${errorText(e)}`,
      tlsFix(errorText(e), sink) ?? 'check its baseUrl and the way from this box to it',
    );
  } finally {
    await sender.close?.();
  }
}

/** The time zones of the terminals delivering to `sink` (their `timezone`, else the box's), each with its terminals. */
function zonesOfTerminals(config: Config, sink: string): string[] {
  const byZone = new Map<string, string[]>();
  for (const t of config.terminals) {
    if (!sinksOfTerminal(config, t.name).includes(sink)) continue;
    const zone = (t as { timezone?: string }).timezone ?? boxIanaZone();
    byZone.set(zone, [...(byZone.get(zone) ?? []), t.name]);
  }
  return [...byZone].map(
    ([zone, names]) => `${zone}${zone === boxIanaZone() ? " (the box's)" : ''}: ${names.join(', ')}`,
  );
}

/** An answer that proves a setting of the sink's wrong, or may: the settings to check (the message says which). */
function settingsFail(name: string, sink: SinkConfig, message: string): CheckResult {
  return fail(
    name,
    `${addressShown(sink.baseUrl)}: ${message}`,
    tlsFix(message, sink) ??
      `${SETTINGS[sink.kind] ?? SETTINGS.hrms} against the server, and the way from this box to it; punchgate run keeps its punches and retries`,
  );
}

/** HTTP statuses of a server down, restarting or overloaded, or of the proxy in front of it. */
const down5xx = (status: number | undefined) => status === 429 || status === 502 || status === 503 || status === 504;

/** Errors of a server not reached at all (nothing listening, no route, no name, no answer in time). */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|timed? ?out|no answer/i;

/** A certificate the sink's server shows that is not trusted: whether its caFile is the wrong CA, or one is needed. */
function tlsFix(message: string, sink: SinkConfig): string | undefined {
  if (speaksNoTls(message)) return noTlsFix(`sinks[${sink.name}].baseUrl`);
  const trusted = certificateFix(message, `sinks[${sink.name}].baseUrl`);
  if (trusted) return trusted;
  if (certificateTrouble(message) !== 'untrusted') return undefined;
  const key = `sinks[${sink.name}].caFile`;
  return sink.caFile
    ? `the CA in ${key} (${sink.caFile}) does not sign the server's certificate: put in that file the PEM certificate of the CA that issued it; check the box's clock too`
    : `the server's certificate is not trusted: if it comes from a private CA, set ${key} to that CA's PEM file; check the box's clock too`;
}
