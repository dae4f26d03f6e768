import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { plainText } from '../../src/sinks/frappe/frappe-json.js';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { startScriptedHrms, type ScriptedHrms, type ScriptedReply } from '../helpers/scripted-hrms.js';

/**
 * The Frappe sender against whatever answers at the site's address: a login page, a redirect,
 * an unknown path, a huge answer, Frappe's errors in the older and newer shapes. Every failure of
 * the site is a failure of the batch said in plain words; no message carries the key or secret.
 */
const KEY = 'hostilekey12345';
const SECRET = 'hostilesecret678';
const TOKEN = `${KEY}:${SECRET}`;
const punch = (n: number): SinkPunch => ({
  devicelogId: `h-${n}`,
  biometricCode: String(100 + n),
  logTime: `2026-11-02 08:00:0${n}`,
  terminal: 'gate',
  device: '',
  timezone: 'UTC',
});

let site: ScriptedHrms;
beforeAll(async () => {
  site = await startScriptedHrms(() => ({}));
});
afterAll(async () => {
  await site.stop();
});

async function answer(reply: () => ScriptedReply, n = 2): Promise<AttendanceAnswer> {
  site.reply = reply;
  // Long: the scripted site answers from the test's own process, which a loaded CI box may hold for a
  // second or more (the hang tests below set their own short deadlines).
  const s = new FrappeSender(
    { baseUrl: site.url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency: 2, timeoutMs: 20_000 },
    { name: 'frappe-hr', connectTimeoutMs: 5000, env: {} },
  );
  try {
    const a = await s.send(
      Array.from({ length: n }, (_, i) => punch(i)),
      { token: TOKEN },
    );
    expect(JSON.stringify(a)).not.toContain(SECRET);
    expect(JSON.stringify(a)).not.toContain(KEY);
    return a;
  } finally {
    await s.close();
  }
}

describe('FrappeSender against a hostile or misconfigured site', () => {
  it('sends the key pair, JSON and the fields Frappe takes', async () => {
    await answer(() => ({ body: { message: { name: 'EMP-CKIN-1' } } }), 1);
    const r = site.seen.at(-1)!;
    expect(r.headers.authorization).toBe(`token ${TOKEN}`);
    expect(r.url).toBe('/api/method/hrms.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field');
  });

  it('a 200 login page is request-failed, saying the key was not taken', async () => {
    const a = await answer(() => ({ body: '<html><head><title>Login</title></head><body>Sign in</body></html>' }));
    expect(a.kind).toBe('request-failed');
    expect(a.kind === 'request-failed' && a.message).toMatch(/"Login".*login page.*check baseUrl of sink frappe-hr/);
  });

  it('a redirect is never followed: request-failed naming where it points', async () => {
    const a = await answer(() => ({ status: 302, headers: { location: 'https://sso.example.com/login?x=1' } }));
    expect(a).toMatchObject({ kind: 'request-failed', httpStatus: 302 });
    expect(a.kind === 'request-failed' && a.message).toMatch(/redirects to sso\.example\.com\/login .*not followed/);
    expect(site.seen.every((r) => !r.url.includes('login'))).toBe(true);
  });

  it('404 and "Failed to get method" name the method setting', async () => {
    for (const reply of [
      () => ({ status: 404, body: '<html><title>Not Found</title></html>' }),
      () => ({
        status: 417,
        body: {
          exc_type: 'ValidationError',
          _server_messages: JSON.stringify([
            JSON.stringify({ message: "Failed to get method for command hrms.hr.x with No module named 'hrms'" }),
          ]),
        },
      }),
    ]) {
      const a = await answer(reply);
      expect(a.kind).toBe('request-failed');
      expect(a.kind === 'request-failed' && a.message).toMatch(
        /check method \(hrms for Frappe HR \/ ERPNext 14 and later/,
      );
    }
  });

  it('a lock wait timeout as 500 with only the exception line, and a deadlock as 417: transient after sending', async () => {
    const a = await answer(() => ({
      status: 500,
      headers: { 'retry-after': '7' },
      body: {
        exception: "pymysql.err.OperationalError: (1205, 'Lock wait timeout exceeded; try restarting transaction')",
      },
    }));
    expect(a).toMatchObject({ kind: 'transient', afterSending: true, httpStatus: 500, retryAfterMs: 7000 });
    const b = await answer(() => ({
      status: 417,
      body: {
        exc_type: 'QueryDeadlockError',
        exception: 'frappe.exceptions.QueryDeadlockError: (1213, Deadlock found when trying to get lock)',
      },
    }));
    expect(b).toMatchObject({ kind: 'transient', afterSending: true });
  });

  it('a column the database lacks (MariaDB 1054, PostgreSQL UndefinedColumn) is request-failed; a bare OperationalError stays transient', async () => {
    for (const exception of [
      `pymysql.err.OperationalError: (1054, "Unknown column 'tabEmployee.badge' in 'where clause'")`,
      'psycopg2.errors.UndefinedColumn: column "badge" does not exist',
    ]) {
      const a = await answer(() => ({
        status: 500,
        body: { exc_type: exception.split(':')[0]!.split('.').pop(), exception },
      }));
      expect(a.kind).toBe('request-failed');
      expect(a.kind === 'request-failed' && a.message).toMatch(
        /no column '(tabEmployee\.)?badge'.*employeeFieldname of sink frappe-hr/,
      );
    }
    // Without the text (allow_error_traceback off) it cannot be told from a lost connection.
    const bare = await answer(() => ({ status: 500, body: { exc_type: 'OperationalError' } }));
    expect(bare).toMatchObject({ kind: 'transient', afterSending: true });
  });

  it("a database's errors in the server's own language are told by their type or code, not by English words", async () => {
    // The database's messages follow its own language setting (MariaDB lc_messages, PostgreSQL
    // lc_messages): these are MariaDB's ER_BAD_FIELD_ERROR in German (sql/share/errmsg-utf8.txt)
    // and PostgreSQL's undefined_column in German and French (its po files), as Frappe's JSON
    // carries them: exc_type is the class's name (frappe/utils/response.py report_error), which
    // a language does not change; MariaDB's code is in the pymysql error's text.
    for (const [excType, exception, column] of [
      [
        'OperationalError',
        `pymysql.err.OperationalError: (1054, "Unbekanntes Tabellenfeld 'tabEmployee.badge' in where clause")`,
        'tabEmployee.badge',
      ],
      ['UndefinedColumn', 'psycopg2.errors.UndefinedColumn: Spalte »badge« existiert nicht', 'badge'],
      ['UndefinedColumn', "psycopg2.errors.UndefinedColumn: la colonne « badge » n'existe pas", 'badge'],
      // The column as PostgreSQL names a qualified one, unquoted.
      [
        'UndefinedColumn',
        'psycopg2.errors.UndefinedColumn: column tabEmployee.badge does not exist',
        'tabEmployee.badge',
      ],
    ] as const) {
      const a = await answer(() => ({ status: 500, body: { exc_type: excType, exception } }));
      expect(a.kind, exception).toBe('request-failed');
      expect(a.kind === 'request-failed' && a.message).toContain(`no column '${column}'`);
    }
    // The type alone (the site sends no traceback): still no retry that could cure it.
    const typeOnly = await answer(() => ({ status: 500, body: { exc_type: 'UndefinedColumn' } }));
    expect(typeOnly.kind).toBe('request-failed');
    expect(typeOnly.kind === 'request-failed' && typeOnly.message).toMatch(
      /the site's database lacks a column the call names/,
    );

    // A lock wait or a serialization failure worth the same call later, whatever the words.
    for (const body of [
      {
        exc_type: 'SerializationFailure',
        exception: 'psycopg2.errors.SerializationFailure: konnte Zugriff nicht serialisieren',
      },
      { exc_type: 'LockNotAvailable', exception: 'psycopg2.errors.LockNotAvailable: konnte Sperre nicht setzen' },
      // An app that wraps the database's error in frappe.throw (417 ValidationError): its code tells.
      {
        exc_type: 'ValidationError',
        _server_messages: JSON.stringify([
          JSON.stringify({
            message: "(1205, 'Beim Warten auf eine Sperre wurde die zulässige Wartezeit überschritten')",
          }),
        ]),
      },
    ]) {
      const t = await answer(() => ({ status: 417, body }));
      expect(t, JSON.stringify(body)).toMatchObject({ kind: 'transient', afterSending: true });
    }
  });

  it('an answer larger than the cap is refused unread', async () => {
    const a = await answer(() => ({ body: { message: { name: 'x'.repeat(200_000) } } }));
    expect(a).toMatchObject({ kind: 'transient', afterSending: true });
    expect(a.kind === 'transient' && a.message).toMatch(/refused unread/);
  });

  it("a refusal that quotes the Authorization header is scrubbed; Frappe's HTML becomes text", async () => {
    const a = await answer(() => ({
      status: 417,
      body: {
        exc_type: 'ValidationError',
        _server_messages: JSON.stringify([JSON.stringify({ message: `Bad <b>header</b> token ${TOKEN} &amp; more` })]),
      },
    }));
    expect(a.kind).toBe('answered');
    expect(a.kind === 'answered' && a.results[0]!.message).toBe('Bad header token [REDACTED] & more');
  });

  it("a duplicate said in the site's language is known by its link to the Employee Checkin already there", async () => {
    // hrms EmployeeCheckin.validate_duplicate_log throws _("This employee already has a log with the same
    // timestamp.{0}") with "<Br>" + frappe.get_desk_link("Employee Checkin", name): the words are translated
    // into the site's (or API user's) language, the link's path is not. Seen in frappe/hrms
    // employee_checkin.py and frappe/frappe __init__.py get_desk_link (v14/v15: /app/Form/<doctype>/<name>;
    // v12/v13: #Form/<doctype>/<name>).
    const said = (text: string) => () => ({
      status: 417,
      body: {
        exc_type: 'ValidationError',
        _server_messages: JSON.stringify([JSON.stringify({ message: text, title: 'Nachricht', indicator: 'red' })]),
      },
    });
    for (const text of [
      'Dieser Mitarbeiter hat bereits ein Protokoll mit demselben Zeitstempel.<Br><a href="/app/Form/Employee Checkin/EMP-CKIN-11-2026-000007" style="font-weight: bold;">Mitarbeiter-Checkin EMP-CKIN-11-2026-000007</a>',
      'Cet employé a déjà un journal avec le même horodatage.<Br><a href="#Form/Employee Checkin/EMP-CKIN-00012" style="font-weight: bold;">Enregistrement EMP-CKIN-00012</a>',
      'هذا الموظف لديه بالفعل سجل بنفس الطابع الزمني.<Br><a href="/app/employee-checkin/EMP-CKIN-3" target="_self">EMP-CKIN-3</a>',
    ]) {
      const a = await answer(said(text), 1);
      expect(a.kind === 'answered' && a.results[0]).toMatchObject({ status: false, duplicate: true });
    }
    // Any other refusal in another language stays a refusal, even with a link to something else.
    const other = await answer(
      said('Kein Mitarbeiter gefunden. <a href="/app/Form/Employee/HR-EMP-1">HR-EMP-1</a>'),
      1,
    );
    expect(other.kind === 'answered' && other.results[0]).toMatchObject({ status: false });
    expect(other.kind === 'answered' && other.results[0]!.duplicate).toBeFalsy();
  });

  it('plainText: line breaks, links, entities', () => {
    expect(
      plainText('This employee already has a log with the same timestamp.<Br><a href="/app/x">EMP-CKIN-1</a>'),
    ).toBe('This employee already has a log with the same timestamp. EMP-CKIN-1');
    expect(plainText('a&lt;b&gt; &#39;c&#39; &#x41;')).toBe("a<b> 'c' A");
  });
});

describe('FrappeSender when calls hang or drop', () => {
  it('a site that never answers: the batch fails after one deadline per worker, not one per punch', async () => {
    const { createServer } = await import('node:net');
    const hang = createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as import('node:net').AddressInfo).port;
    const s = new FrappeSender(
      {
        baseUrl: `http://127.0.0.1:${port}`,
        method: 'hrms',
        employeeFieldname: 'attendance_device_id',
        concurrency: 2,
        timeoutMs: 300,
      },
      { connectTimeoutMs: 200, env: {} },
    );
    try {
      const t0 = Date.now();
      const a = await s.send(
        Array.from({ length: 40 }, (_, i) => punch(i % 9)),
        { token: TOKEN },
      );
      expect(a).toMatchObject({ kind: 'transient', afterSending: true });
      // One 500 ms deadline per worker; one per punch would be 10 s. A loaded CI box may take
      // seconds more (a 2.5 s bound over 20 punches failed by chance).
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      await s.close();
      hang.close();
    }
  });
});

describe("a refusal that is not Frappe's (a firewall's or gateway's JSON) charges no punch", () => {
  it.each([
    ['400 from a firewall', 400, { message: 'Request blocked by policy' }],
    ['422 from a gateway', 422, { error: 'unprocessable' }],
    ['417 with an empty object', 417, {}],
  ])('%s: request-failed, no punch refused', async (_what, status, body) => {
    const a = await answer(() => ({ status, body }));
    // Before, each punch was refused with those words (retried slowly, then dead).
    expect(a.kind, JSON.stringify(a)).toBe('request-failed');
    expect(a.kind === 'request-failed' && a.message).toMatch(
      /not Frappe's (JSON|answer).*check baseUrl of sink frappe-hr/,
    );
  });

  it("Frappe's own refusal, with only the exception line or only its messages, still refuses the punch", async () => {
    const a = await answer(() => ({
      status: 417,
      body: { exception: 'frappe.exceptions.ValidationError: No Employee found for the given employee field value.' },
    }));
    expect(a).toMatchObject({ kind: 'answered', results: [{ status: false }, { status: false }] });
    const b = await answer(() => ({
      status: 417,
      body: {
        _server_messages: JSON.stringify([
          JSON.stringify({ message: 'Transactions cannot be created for an Inactive Employee' }),
        ]),
      },
    }));
    expect(b).toMatchObject({ kind: 'answered', results: [{ status: false }, { status: false }] });
  });
});

describe('a success that is not about the punch sent confirms nothing', () => {
  it('a new Employee Checkin at another time (a cache answering every call alike): not delivered', async () => {
    const a = await answer(() => ({ body: { message: { name: 'EMP-CKIN-9', time: '2026-01-01 00:00:00' } } }), 1);
    expect(a.kind, JSON.stringify(a)).toBe('bad-reply');
    expect(a.kind === 'bad-reply' && a.message).toMatch(/not the check-in sent \(2026-11-02 08:00:00\)/);
  });

  it('its own time, written another way (T, microseconds), is the punch', async () => {
    const a = await answer(
      () => ({ body: { message: { name: 'EMP-CKIN-9', time: '2026-11-02T08:00:00.000000' } } }),
      1,
    );
    expect(a).toMatchObject({ kind: 'answered', results: [{ status: true }] });
  });

  it('one new document named for two punches of a batch: neither taken as recorded', async () => {
    const a = await answer(() => ({ body: { message: { name: 'EMP-CKIN-1' } } }), 3);
    expect(a.kind).toBe('answered');
    const results = a.kind === 'answered' ? a.results : [];
    expect(
      results.every((r) => r.unknown === true && !r.status),
      JSON.stringify(a),
    ).toBe(true);
    expect(results[0]!.message).toMatch(/EMP-CKIN-1 for more than one punch/);
  });
});
