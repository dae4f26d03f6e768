#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768 node --optimize-for-size --max-semi-space-size=4
// The line above gives punchgate started from a shell (`punchgate import`, `flush`, `status`) the
// memory settings of the systemd unit (see systemd/punchgate.service and BENCHMARKS.md). `env -S`
// sets the environment and node's flags: GNU coreutils 8.30 or newer (Debian 10, Ubuntu 20.04,
// RHEL 8 and later); busybox's env has no -S (docs/operate.md says what to run there).
// First: a simulator's stop signals that come while the rest loads are held for it (early-signals.ts).
import './early-signals.js';
import { endQuietlyOnBrokenPipe } from './common.js';
import { buildProgram } from './program.js';
import { unknownCommandOf } from './unknown-command.js';
import { EXIT } from '../util/exit-codes.js';

endQuietlyOnBrokenPipe();

const program = buildProgram();
const unknown = unknownCommandOf(program, process.argv.slice(2));
if (unknown !== undefined) {
  process.stderr.write(`${unknown}\n(add --help to the command to see its options)\n`);
  process.exit(EXIT.USAGE);
}
await program.parseAsync(process.argv);
