#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768 node --optimize-for-size --max-semi-space-size=4
// The line above gives punchgate started from a shell (`punchgate import`, `flush`, `status`) the
// memory settings of the systemd unit (see systemd/punchgate.service and BENCHMARKS.md): `env -S`
// (GNU coreutils >= 8.30, every distribution that Node 20 runs on) sets the environment and node's flags.
import { endQuietlyOnBrokenPipe } from './common.js';
import { buildProgram } from './program.js';

endQuietlyOnBrokenPipe();

await buildProgram().parseAsync(process.argv);
