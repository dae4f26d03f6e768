import type { TerminalConfig } from '../config/terminals.js';
import type { Source, SourceDeps } from '../sources/types.js';
import type { Logger } from '../util/logger.js';

export type SourceFactory = (cfg: TerminalConfig, deps: SourceDeps) => Source;

/**
 * The running sources, one per enabled terminal. `apply` brings them in line with a new
 * terminal list (SIGHUP): added terminals start, removed ones stop, changed ones restart;
 * untouched ones keep running undisturbed.
 */
export class SourceSet {
  private readonly running = new Map<string, { cfg: TerminalConfig; source: Source }>();

  constructor(
    private readonly factory: SourceFactory,
    private readonly deps: SourceDeps,
    private readonly logger: Logger,
  ) {}

  names(): string[] {
    return [...this.running.keys()];
  }

  /** Punches the sources hold in memory because the journal cannot take them now. */
  held(): number {
    let n = 0;
    for (const r of this.running.values()) n += r.source.held ?? 0;
    return n;
  }

  async apply(terminals: readonly TerminalConfig[]): Promise<void> {
    const wanted = new Map(terminals.filter((t) => t.enabled).map((t) => [t.name, t]));
    for (const [name, r] of this.running) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== JSON.stringify(r.cfg)) {
        this.running.delete(name);
        await r.source.stop(next ? 'restart' : undefined);
        this.logger.info({ terminal: name }, next ? 'terminal changed: restarting its source' : 'terminal removed');
      }
    }
    for (const [name, cfg] of wanted) {
      if (this.running.has(name)) continue;
      const source = this.factory(cfg, this.deps);
      this.running.set(name, { cfg, source });
      try {
        await source.start();
        this.logger.info({ terminal: name, kind: cfg.kind }, 'terminal source started');
      } catch (e) {
        // A source that cannot start (e.g. a bad serial path) must not stop the others.
        this.logger.error(
          { terminal: name, err: e instanceof Error ? e.message : String(e) },
          'terminal source failed to start',
        );
      }
    }
  }

  async stopAll(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => r.source.stop().catch(() => undefined)));
  }
}
