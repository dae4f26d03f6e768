/**
 * The shipped demo config (config/demo.yaml) on free ports, in a test's folder: the demo tests
 * run it as a newcomer would, without taking the fixed ports a real demo may hold.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';

interface DemoDoc {
  hrms: { baseUrl: string };
  status: { listen: string; path?: string };
  adms: { listen: string };
  terminals: { kind: string; port?: number; baseUrl?: string }[];
}

/** Writes `demo.yaml` (and its token) into the folder of `path`, every port free; returns the parsed shipped config. */
export async function demoConfigOnFreePorts(path: (name: string) => string): Promise<{
  config: string;
  shipped: DemoDoc;
  ports: { zk: number; hrms: number; push: number; biotime: number; dahua: number };
}> {
  const [zk, hrms, push, biotime, dahua] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const shipped = parse(readFileSync('config/demo.yaml', 'utf8')) as DemoDoc;
  const demo = structuredClone(shipped);
  demo.hrms.baseUrl = `http://127.0.0.1:${hrms}`;
  demo.adms.listen = `127.0.0.1:${push}`;
  for (const t of demo.terminals) {
    if (t.kind === 'zk') t.port = zk;
    if (t.kind === 'biotime') t.baseUrl = `http://127.0.0.1:${biotime}`;
    if (t.kind === 'dahua') t.port = dahua;
  }
  const config = path('demo.yaml');
  writeFileSync(
    config,
    stringify({ ...demo, journal: { path: 'journal.db' }, status: { ...demo.status, path: 'status.txt' } }),
  );
  copyFileSync('config/demo-token', path('demo-token'));
  return { config, shipped, ports: { zk, hrms, push, biotime, dahua } };
}
