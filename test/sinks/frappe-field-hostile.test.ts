import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import type { SettingsVerdict } from '../../src/sinks/types.js';
import { startScriptedHrms, type ScriptedHrms, type ScriptedReply } from '../helpers/scripted-hrms.js';

/**
 * The employeeFieldname check (`punchgate check`) against whatever answers the Employee read: it
 * never throws, never fails a site for an answer it cannot read (said as not checked), only for a
 * field Employee lacks, and no word of it carries the key or secret.
 */
const KEY = 'fieldkey12345';
const SECRET = 'fieldsecret678';

let site: ScriptedHrms;
beforeAll(async () => {
  site = await startScriptedHrms(() => ({}));
});
afterAll(async () => {
  await site.stop();
});

async function verdict(
  reply: () => ScriptedReply,
  employeeFieldname = 'attendance_device_id',
): Promise<SettingsVerdict> {
  site.reply = reply;
  const s = new FrappeSender(
    { baseUrl: site.url, method: 'hrms', employeeFieldname, concurrency: 1, timeoutMs: 20_000 },
    { connectTimeoutMs: 5000, env: {} },
  );
  try {
    const v = await s.checkSettings({ token: `${KEY}:${SECRET}` });
    expect(JSON.stringify(v)).not.toContain(SECRET);
    return v;
  } finally {
    await s.close();
  }
}

describe('the Frappe employeeFieldname check against hostile answers', () => {
  it('asks one GET of one Employee, the field beside name, then one GET of the Employees holding a code', async () => {
    site.seen.length = 0;
    expect(await verdict(() => ({ body: { data: [{ name: 'E1', custom_badge: null }] } }), 'custom_badge')).toEqual({
      kind: 'right',
      said: "found Employee's field custom_badge (one Employee read); no two Employees share a code",
    });
    expect(site.seen).toHaveLength(2);
    expect(site.seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(decodeURIComponent(site.seen[0]!.url)).toBe(
      '/api/resource/Employee?fields=["name","custom_badge"]&limit_page_length=1',
    );
    expect(decodeURIComponent(site.seen[1]!.url)).toBe(
      '/api/resource/Employee?fields=["name","status","custom_badge"]&filters=[["custom_badge","is","set"]]&limit_page_length=0',
    );
  });

  it('a list that cannot be read leaves the shared codes unchecked, never the field', async () => {
    let n = 0;
    const v = await verdict(() =>
      ++n === 1 ? { body: { data: [{ name: 'E1', attendance_device_id: '7' }] } } : { status: 403, body: {} },
    );
    expect(v).toEqual({
      kind: 'right',
      said: "found Employee's field attendance_device_id (one Employee read); codes shared by Employees not checked (HTTP 403)",
    });
  });

  it.each<[string, ScriptedReply, RegExp]>([
    ['an HTML page', { body: '<html>login</html>' }, /not checked: HTTP 200 without Employee rows/],
    ['data that is no list', { body: { data: 'x' } }, /not checked: HTTP 200 without Employee rows/],
    ['rows that are no objects', { body: { data: [1, null, 'x'] } }, /not checked: the site has no Employee yet/],
    ['a 502 page', { status: 502, body: '<html>Bad Gateway</html>' }, /not checked: HTTP 502/],
    ['a refused key', { status: 401, body: { exc_type: 'AuthenticationError' } }, /not checked: Frappe refused/],
  ])('%s is said as not checked', async (_what, reply, said) => {
    const v = await verdict(() => reply);
    expect(v.kind).toBe('unchecked');
    expect(v.kind === 'unchecked' && v.said).toMatch(said);
  });

  it("a row without the field, or MariaDB's 1054 naming it, is the setting wrong", async () => {
    expect(await verdict(() => ({ body: { data: [{ name: 'E1' }] } }))).toMatchObject({
      kind: 'wrong',
      setting: 'employeeFieldname',
    });
    // A prototype's key is no field of the row.
    expect(await verdict(() => ({ body: { data: [{ name: 'E1' }] } }), 'constructor')).toMatchObject({ kind: 'wrong' });
    const column = {
      status: 500,
      body: {
        exc_type: 'OperationalError',
        exception: "pymysql.err.OperationalError: (1054, \"Unknown column 'attendance_device_id' in 'field list'\")",
      },
    };
    expect(await verdict(() => column)).toMatchObject({ kind: 'wrong', setting: 'employeeFieldname' });
  });
});
