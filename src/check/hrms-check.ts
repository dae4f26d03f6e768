import type { Config } from '../config/schema.js';
import { seedHrmsOf } from '../config/sinks.js';
import { compilePatterns } from '../delivery/outcomes.js';
import { AttendanceClient, type AttendanceAnswer, type AttendanceSender } from '../hrms/attendance.js';
import { TokenSource } from '../hrms/token.js';
import { isStartCopy, readFromStartCopy, tokenPickup } from '../hrms/token-pickup.js';
import { hrmsReachFix } from '../hrms/reach-fix.js';
import type { Secrets } from '../util/secrets.js';
import { errorText, fail, pass, warn, type CheckResult } from './types.js';
import { addressShown } from '../config/web-address.js';
import { buildProblem } from '../sinks/build-problem.js';

const NAME = 'hrms';

export interface HrmsCheckDeps {
  env: NodeJS.ProcessEnv;
  secrets: Secrets;
  /** Default: an AttendanceClient on the config's HRMS (own connection pool, closed after). */
  sender?: AttendanceSender;
}

/**
 * The HRMS token check, which records no punch: the attendance endpoint gets an empty batch
 * (`punches_data=[]`). The HRMS checks the bearer token before it processes anything, and an
 * empty batch has nothing to record: a valid token gets `Status: true` with an empty
 * `Payload`, a refused one gets the "bearer token is not correct" failure.
 */
export async function checkHrms(config: Config, deps: HrmsCheckDeps): Promise<CheckResult> {
  const hrms = seedHrmsOf(config);
  if (!hrms) return pass(NAME, 'no seed HRMS configured (sinks of other kinds are checked by their own senders)');
  // Where its keys are: the hrms: block, else the first sink of kind hrms.
  const prefix = config.hrms ? 'hrms' : `sinks[${config.sinks.find((s) => s.kind === 'hrms')?.name ?? 'hrms'}]`;
  const ca = hrms.caFile ? { key: `${prefix}.caFile`, file: hrms.caFile } : undefined;
  const tokens = new TokenSource({ tokenFile: hrms.tokenFile, env: deps.env, secrets: deps.secrets });
  const where = tokenPlace(tokens, hrms.tokenFile, deps.env);
  let token: string;
  try {
    token = tokens.get();
  } catch (e) {
    const problem = errorText(e).replace(/^hrms\.tokenFile: /, '');
    if (/EACCES/.test(problem)) {
      // The installed token file is root:punchgate 0640 on purpose (packaging/debian/postinst): the
      // service reads it itself, an admin outside the group does not.
      return fail(
        NAME,
        `cannot read the HRMS token file ${tokens.file() ?? ''}: permission denied`,
        'run the check as root (sudo punchgate check); the token file stays readable by root and the group punchgate only (root:punchgate 0640), which the service reads it with',
      );
    }
    if (problem.startsWith('no token configured'))
      return fail(NAME, 'no token configured', `put the token in ${where}`);
    // "... has 2 lines: put the token alone on one line": the problem carries its own fix.
    const [what, fix] = problem.split(/: (?=put )/);
    // No file at all: a name mistyped in the config as likely as a token never put there.
    if (/\(ENOENT\)/.test(what!))
      return fail(
        NAME,
        `no HRMS token: ${what}`,
        `put the token in ${where}, or correct hrms.tokenFile if that name is mistyped`,
      );
    return fail(NAME, fix ? what! : `no HRMS token: ${what}`, fix ?? `put the token in ${where}`);
  }

  let sender: AttendanceSender;
  try {
    sender =
      deps.sender ??
      new AttendanceClient({
        hrms,
        authPatterns: compilePatterns(config.delivery.patterns.authFailure),
        env: deps.env,
      });
  } catch (e) {
    // The words name the key whose file failed (a missing caFile is not a proxy problem).
    const { problem, fix } = buildProblem(e, prefix);
    return fail(NAME, problem, fix);
  }
  // Which way the requests go, never with the proxy's credentials.
  const route = sender instanceof AttendanceClient ? `; reached ${sender.route()}` : '';
  const started = Date.now();
  try {
    const answer = await sender.send([], { token });
    // Re-read without a restart, unless the service can only read systemd's copy made at its start.
    const file = tokens.file();
    const fromCopy = readFromStartCopy(file, deps.env);
    const pickup = tokenPickup(fromCopy, fromCopy && !isStartCopy(file, deps.env) ? file : undefined);
    return describeAnswer(
      answer,
      addressShown(hrms.baseUrl),
      route,
      Date.now() - started,
      where,
      ca,
      pickup,
      `${prefix}.baseUrl`,
    );
  } catch (e) {
    return fail(
      NAME,
      `cannot reach the HRMS at ${addressShown(hrms.baseUrl)}: ${errorText(e)}${route}`,
      hrmsReachFix(errorText(e), ca, `${prefix}.baseUrl`),
    );
  } finally {
    if (!deps.sender) await sender.close?.();
  }
}

function describeAnswer(
  answer: AttendanceAnswer,
  url: string,
  route: string,
  ms: number,
  where: string,
  ca: { key: string; file: string } | undefined,
  /** How a new token takes effect (token-pickup.ts). */
  pickup: string,
  /** Where the HRMS's address is in the config (`hrms.baseUrl`, `sinks[x].baseUrl`). */
  baseUrlKey: string,
): CheckResult {
  switch (answer.kind) {
    case 'answered':
      return pass(NAME, `${url} accepted the token (an empty test batch: nothing recorded) in ${ms} ms${route}`);
    case 'auth':
      return fail(
        NAME,
        `the HRMS refused the token (${answer.httpStatus ? `HTTP ${answer.httpStatus}: ` : ''}${answer.message})`,
        `put a valid token in ${where}; ${pickup}`,
      );
    case 'transient':
      if (answer.httpStatus !== undefined) {
        return fail(
          NAME,
          `${url} is up but failing (${answer.message})${route}`,
          'try again later, or ask the HRMS administrator; punchgate run keeps the punches and retries',
        );
      }
      return fail(
        NAME,
        `cannot reach the HRMS at ${url}: ${answer.message}${answer.message.includes(route.slice(10)) ? '' : route}`,
        hrmsReachFix(answer.message, ca, baseUrlKey),
      );
    case 'request-failed':
      if (answer.httpStatus === 407)
        return fail(
          NAME,
          `the proxy refused the credentials (HTTP 407)${route}`,
          'check the user and password in hrms.proxy, hrms.proxyCredentialsFile or HTTPS_PROXY',
        );
      return fail(NAME, `${url}: ${whatOf(answer.message)}${route}`, fixOf(answer.message));
    case 'bad-reply':
      return fail(
        NAME,
        `${url} answered the empty test batch with something that is not the HRMS's answer (${answer.message})${route}`,
        'check hrms.baseUrl and hrms.attendancePath against the HRMS instance',
      );
    case 'refused':
      return warn(
        NAME,
        `${url} did not refuse the token but did not take the empty test batch either (HTTP ${answer.httpStatus}: ${answer.message})${route}`,
        'watch the first delivery in punchgate status; if it fails, show this message to the HRMS administrator',
      );
    case 'too-large':
      return warn(
        NAME,
        `${url} answered an empty test batch with HTTP 413 (${answer.message})${route}`,
        'watch the first delivery in punchgate status',
      );
  }
}

/** A request failure's message is "what happened: what to check"; the check shows them apart. */
const FIX = /: ((?:check|ask) [^:]*)$/;
function whatOf(message: string): string {
  return message.replace(FIX, '');
}
function fixOf(message: string): string {
  return FIX.exec(message)?.[1] ?? 'check hrms.baseUrl and the way from this box to the HRMS';
}

/** Where an admin puts the token, as the TokenSource looks for it. */
function tokenPlace(tokens: TokenSource, tokenFile: string | undefined, env: NodeJS.ProcessEnv): string {
  const file = tokens.file();
  if (file !== undefined && env.CREDENTIALS_DIRECTORY && !env.PUNCHGATE_HRMS_TOKEN) {
    return "the file the unit's LoadCredential=token: names (/etc/punchgate/token)";
  }
  if (file === undefined && !tokenFile) return 'PUNCHGATE_HRMS_TOKEN (or a file named by hrms.tokenFile)';
  if (file === undefined) return `PUNCHGATE_HRMS_TOKEN (it overrides ${tokenFile})`;
  return `${file} (or PUNCHGATE_HRMS_TOKEN)`;
}
