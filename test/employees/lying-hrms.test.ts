/**
 * An HRMS that answers "status true" to a create or an update it did not do (a mapping that drops
 * the record, a plug-in that swallows errors). The admin must not be told "created": where the
 * HRMS's employee list can be fetched, punchgate reads it back and says what is not there.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmployee, updateEmployee } from '../../src/employees/commands.js';
import { importEmployees } from '../../src/employees/import-command.js';
import { HrmsUsers } from '../../src/hrms/users.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';
import { Sink } from './helpers.js';

let server: Server | null = null;
let client: HrmsUsers | null = null;
let tmp: ReturnType<typeof tempDir> | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = null;
  tmp?.cleanup();
  tmp = null;
});

/** An HRMS whose list holds `list`, and which answers every user operation "status true" and keeps nothing. */
async function lyingHrms(list: Record<string, unknown>[]): Promise<{ client: HrmsUsers; posts: string[] }> {
  const posts: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('updateUser')) {
        posts.push(body);
        const created = !list.some((e) => body.includes(`"${String(e.username)}"`));
        res.end(
          JSON.stringify({ status: true, message: created ? 'Employee created successfully' : 'Employee updated' }),
        );
      } else res.end(JSON.stringify({ status: true, data: list }));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  client = new HrmsUsers({
    hrms: {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      userPath: '/api.php/system/hrms/updateUser',
      employeeFetch: { path: '/api.php/system/hrms/fetchEmployees', method: 'GET', params: {} as never },
      timeoutMs: 5000,
      connectTimeoutMs: 2000,
    },
    token: { get: () => 't0k3n' },
    secrets: new Secrets(),
  });
  return { client, posts };
}

const ann = { username: 'ann', name: 'Ann Lee', email: 'ann@example.com', Role: 'Operator' };

describe('an HRMS that answers status true to a change it did not make', () => {
  it('employees create: the list does not hold the new employee afterwards; said, exit 1', async () => {
    const { client: c, posts } = await lyingHrms([ann]);
    const out = new Sink();
    const err = new Sink();
    const code = await createEmployee(
      { username: 'jdoe', name: 'John Doe', email: 'jdoe@example.com' },
      { client: c, out, err, identifyBy: 'username' },
    );
    expect(posts).toHaveLength(1);
    expect(out.text).toContain('Employee created successfully');
    expect(err.text).toContain(
      'punchgate: the HRMS answered status true, but its employee list does not hold username jdoe afterwards: not created',
    );
    expect(code).toBe(1);
  });

  it('employees update: a field the list still shows as before; said, exit 1', async () => {
    const { client: c } = await lyingHrms([ann]);
    const out = new Sink();
    const err = new Sink();
    const code = await updateEmployee('ann', { role: 'Lead' }, { client: c, out, err, identifyBy: 'username' });
    expect(err.text).toContain(
      'punchgate: the HRMS answered status true, but its employee list still shows username ann with Role "Operator" afterwards: not updated',
    );
    expect(code).toBe(1);
  });

  it('employees import: rows the list does not show afterwards are failed, not created or updated; exit 1', async () => {
    const { client: c, posts } = await lyingHrms([ann]);
    tmp = tempDir('punchgate-lying-');
    const file = tmp.path('staff.csv');
    writeFileSync(
      file,
      ['username,name,email,Role', 'ann,Ann Lee,ann@example.com,Lead', 'jdoe,John Doe,jdoe@example.com,Operator'].join(
        '\n',
      ) + '\n',
    );
    const out = new Sink();
    const err = new Sink();
    const code = await importEmployees(file, {}, { client: c, out, err, identifyBy: 'username', columns: {} });
    expect(posts).toHaveLength(2);
    expect(out.text).toContain('2 rows: 0 created, 0 updated, 0 unchanged, 2 failed');
    expect(out.text).toMatch(/still shows username ann with Role "Operator" afterwards: not updated/);
    expect(out.text).toMatch(/does not hold username jdoe afterwards: not created/);
    expect(code).toBe(1);
  });

  it('a list under other field names is not taken for a lie: not checked, said, exit 0', async () => {
    const { client: c } = await lyingHrms([{ Username: 'ann', 'Employee Name': 'Ann Lee' }]);
    const out = new Sink();
    const err = new Sink();
    const code = await createEmployee(
      { username: 'jdoe', name: 'John Doe', email: 'jdoe@example.com' },
      { client: c, out, err, identifyBy: 'username' },
    );
    expect(err.text).toBe(
      'punchgate: not checked: the HRMS\'s employee list carries no "username" field to find the employees sent by\n',
    );
    expect(code).toBe(0);
  });

  it('an honest HRMS is not doubted: nothing more is said, exit 0', async () => {
    const list: Record<string, unknown>[] = [ann];
    const { client: c } = await lyingHrms(list);
    list.push({ username: 'jdoe', name: 'John Doe', email: 'jdoe@example.com' });
    const out = new Sink();
    const err = new Sink();
    const code = await createEmployee(
      { username: 'jdoe', name: 'John Doe', email: 'jdoe@example.com' },
      { client: c, out, err, identifyBy: 'username' },
    );
    expect(err.text).toBe('');
    expect(code).toBe(0);
  });
});

describe('text that would act instead of read, before it reaches the HRMS', () => {
  it('a control or bidirectional character in a value is an invalid row (its line), never sent; the rest go, exit 65', async () => {
    const { client: c, posts } = await lyingHrms([]);
    tmp = tempDir('punchgate-hostile-');
    const file = tmp.path('staff.csv');
    writeFileSync(
      file,
      [
        'username,name,email',
        'ann,Ann Lee,ann@example.com',
        'evil,"Evil\u001b]0;owned\u0007",evil@example.com',
        'rlo,"Invoice\u202Egpj.exe",rlo@example.com',
        'nul,"Nul\u0000Byte",nul@example.com',
        '"multi","Two\nLines",multi@example.com',
      ].join('\n') + '\n',
    );
    const out = new Sink();
    const err = new Sink();
    const code = await importEmployees(file, {}, { client: c, out, err, identifyBy: 'username', columns: {} });
    expect(code).toBe(65);
    // Ann, and the name whose line break is a blank between words, are sent; the others never are.
    expect(posts.map((p) => (JSON.parse(p) as { username: string }).username)).toEqual(['ann', 'multi']);
    expect(out.text).toMatch(/2\s+3\s+evil\s+invalid\s+name holds a control character \(U\+001B\)/);
    expect(out.text).toMatch(/3\s+4\s+rlo\s+invalid\s+name holds a bidirectional control \(U\+202E\)/);
    expect(out.text).toMatch(/4\s+5\s+nul\s+invalid\s+name holds a control character \(U\+0000\)/);
    expect([...out.text].some((ch) => ch === '\u001b' || ch === '\u0007' || ch === '\u202e')).toBe(false);
  });

  it('employees create with such a name sends nothing, exit 65', async () => {
    const { client: c, posts } = await lyingHrms([]);
    const out = new Sink();
    const err = new Sink();
    const code = await createEmployee(
      { username: 'x', name: 'Bad\u001b[2JName', email: 'x@example.com' },
      { client: c, out, err, identifyBy: 'username' },
    );
    expect(code).toBe(65);
    expect(posts).toHaveLength(0);
    expect(err.text).toContain('name holds a control character (U+001B)');
  });
});
