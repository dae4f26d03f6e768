#!/usr/bin/env node
import { endQuietlyOnBrokenPipe } from './common.js';
import { buildProgram } from './program.js';

endQuietlyOnBrokenPipe();

await buildProgram().parseAsync(process.argv);
