import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCheck } from '../../src/cli/commands/check.js';
import { unitEnvironment } from '../../bench/lib/unit.js';

/**
 * No Docker engine runs here, so the Dockerfile is checked by reading it: its stages, its
 * user, its volume, its health check, and that what it copies and runs exists in the repo.
 */
interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name: string | undefined;
  body: Instruction[];
}

function parseDockerfile(text: string): Stage[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Stage[] = [];
  for (const raw of joined.split('\n')) {
    const l = raw.trim();
    if (!l) continue;
    const m = /^(\S+)\s*(.*)$/.exec(l)!;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.replace(/\s+/g, ' ').trim();
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from: f[1]!, name: f[2], body: [] });
    } else {
      if (stages.length === 0) throw new Error(`${op} before the first FROM`);
      stages[stages.length - 1]!.body.push({ op, args });
    }
  }
  return stages;
}

const root = process.cwd();
const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const build = stages.find((s) => s.name === 'build');
const runtime = stages[stages.length - 1]!;
const all = (s: Stage, op: string) => s.body.filter((i) => i.op === op).map((i) => i.args);
const one = (s: Stage, op: string) => {
  const v = all(s, op);
  if (v.length !== 1) throw new Error(`${op} appears ${v.length} times in the last stage`);
  return v[0]!;
};

describe('Dockerfile', () => {
  it('builds in a separate stage with the tools for the native modules', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build?.from).toBe('node:20-bookworm-slim');
    const runs = all(build!, 'RUN').join('\n');
    expect(runs).toMatch(/apt-get install[^\n]*\bpython3\b[^\n]*\bmake\b[^\n]*\bg\+\+/);
    expect(runs).toContain('npm ci');
    expect(runs).toContain('npm run build');
    expect(runs).toContain('npm prune --omit=dev');
    // The TypeScript build runs after the sources are copied in.
    const order = build!.body.map((i) => `${i.op} ${i.args}`);
    expect(order.findIndex((l) => l.startsWith('COPY src'))).toBeLessThan(
      order.findIndex((l) => l.includes('npm run build')),
    );
  });

  it('runs a small runtime stage: no compilers, only what the build stage produced', () => {
    expect(runtime.from).toBe('node:20-bookworm-slim');
    expect(runtime).not.toBe(build);
    const runs = all(runtime, 'RUN').join('\n');
    expect(runs).not.toMatch(/g\+\+|build-essential|npm (ci|install)/);
    const copies = all(runtime, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) expect(c).toMatch(/^--from=build /);
    expect(copies.join('\n')).toContain('/app/node_modules');
    expect(copies.join('\n')).toContain('/app/dist/punchgate.js');
  });

  it('runs as a non-root user created in the image, after everything that needs root', () => {
    const user = one(runtime, 'USER');
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(all(runtime, 'RUN').join('\n')).toMatch(new RegExp(`useradd[^\\n]*\\b${user}\\b`));
    const ops = runtime.body.map((i) => i.op);
    expect(ops.lastIndexOf('RUN')).toBeLessThan(ops.indexOf('USER'));
    expect(ops.indexOf('USER')).toBeLessThan(ops.indexOf('ENTRYPOINT'));
  });

  it('keeps the journal in a volume and mounts the config at /etc/punchgate', () => {
    expect(one(runtime, 'VOLUME')).toBe('/var/lib/punchgate');
    expect(one(runtime, 'CMD')).toBe('["run", "--config", "/etc/punchgate/punchgate.yaml"]');
    expect(one(runtime, 'ENTRYPOINT')).toBe('["node", "--optimize-for-size", "/app/dist/punchgate.js"]');
  });

  it('runs with the memory settings of the systemd unit (BENCHMARKS.md measures those)', () => {
    const image = Object.fromEntries(
      all(runtime, 'ENV')
        .flatMap((e) => [...e.matchAll(/(\w+)=("[^"]*"|\S+)/g)])
        .map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')]),
    );
    const memory = Object.entries(unitEnvironment()).filter(([k]) => k !== 'NODE_ENV');
    expect(memory.map(([k]) => k)).toEqual(['NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
    for (const [k, v] of memory) expect(`${k}=${image[k]}`).toBe(`${k}=${v}`);
  });

  it('the entry point is the package bin, built from a file that exists', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(`/app/${pkg.bin.punchgate}`).toBe('/app/dist/punchgate.js');
    // The bundle is what `npm run build` makes from the compiled CLI.
    expect(pkg.scripts.build).toMatch(/tsc -p tsconfig\.build\.json && rolldown -c rolldown\.config\.ts/);
    const bundler = readFileSync(join(root, 'rolldown.config.ts'), 'utf8');
    expect(bundler).toMatch(/input: 'dist\/src\/cli\/main\.js'/);
    expect(bundler).toMatch(/file: 'dist\/punchgate\.js'/);
    expect(existsSync(join(root, 'src/cli/main.ts'))).toBe(true);
  });

  it('has a health check that runs `punchgate check --quick`, an option the CLI has', () => {
    const hc = one(runtime, 'HEALTHCHECK');
    expect(hc).toMatch(/--interval=\d+s/);
    expect(hc).toMatch(/--start-period=\d+s/);
    const cmd = /CMD (\[.*\])$/.exec(hc);
    expect(cmd).not.toBeNull();
    const argv = JSON.parse(cmd![1]!) as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '/app/dist/punchgate.js']);
    expect(argv).toEqual(expect.arrayContaining(['check', '--quick', '--config', '/etc/punchgate/punchgate.yaml']));
    const program = new Command('punchgate');
    registerCheck(program);
    const check = program.commands.find((c) => c.name() === 'check');
    expect(check?.options.map((o) => o.long)).toEqual(expect.arrayContaining(['--quick', '--json']));
  });

  it('copies only files that exist in the repository', () => {
    for (const c of all(build!, 'COPY')) {
      if (c.startsWith('--from=')) continue;
      const sources = c.split(' ').slice(0, -1);
      for (const s of sources) expect(existsSync(join(root, s)), `COPY source ${s}`).toBe(true);
    }
  });

  it('.dockerignore keeps dependencies, builds, git and test artefacts out of the context', () => {
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore).toEqual(
      expect.arrayContaining(['node_modules', 'dist', '.git', 'test', 'coverage', '*.db', '*.db-wal', '*.db-shm']),
    );
    // What the build copies must not be ignored.
    for (const needed of [
      'src',
      'config',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      expect(ignore).not.toContain(needed);
    }
  });
});
