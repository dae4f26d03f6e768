import type { AdmsTerminalConfig } from '../../config/terminals.js';
import type { Source, SourceDeps } from '../types.js';

/**
 * One push terminal as a source. The terminal connects to the shared receiver, so starting
 * the source means accepting its serial there, and stopping it means refusing it again. The
 * receiver's writes are synchronous transactions: none is ever half done when this returns.
 */
export class AdmsSource implements Source {
  readonly name: string;

  constructor(
    private readonly cfg: AdmsTerminalConfig,
    private readonly deps: SourceDeps,
  ) {
    this.name = cfg.name;
  }

  async start(): Promise<void> {
    if (!this.deps.pushReceiver) {
      throw new Error(`push terminal ${this.cfg.name} needs the receiver: set adms.listen`);
    }
    this.deps.pushReceiver.register(this.cfg);
  }

  async stop(): Promise<void> {
    this.deps.pushReceiver?.unregister(this.cfg.name);
  }
}
