/**
 * The house rules for imports, checked by `npm run lint` (dependency-cruiser).
 *
 * A punch flows one way: terminals -> sources -> journal -> delivery -> HRMS. Each stage imports
 * only what is below it; config, CLI, status, check and the simulators sit around the line.
 * Type-only imports count too: a cycle of types is still a cycle for a reader.
 */
const { untrackedFiles, exactly } = require('./.ci/untracked.cjs');

const stage = (name) => `^src/${name}(/|\\.ts$)`;

/** What each folder of the line must not import: everything above it, and the parts around the line. */
const AROUND = ['cli/', 'daemon/', 'status/', 'check/', 'demo/', 'employees/', 'roster/', 'sim/', 'web/', 'metrics/'];
const layer = (name, forbidden, comment) => ({
  name: `${name}-layer`,
  comment,
  severity: 'error',
  from: { path: stage(name) },
  to: { path: `^src/(${forbidden.join('|')})` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Imports never run in a circle (types included): move the shared part to its own module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'util-is-a-leaf',
      comment: 'src/util holds small shared parts: it imports nothing else of punchgate.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'config-imports-only-util',
      comment: 'Everything reads the config; the config reads nothing above it (no upward import).',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: ['^src/config/', '^src/util/', '^src/punch\\.ts$', '^src/punch/states\\.ts$'] },
    },
    {
      name: 'no-source-into-another-source',
      comment:
        "A source never reaches into another source's internals; shared parts live in src/sources/*.ts or src/util.",
      severity: 'error',
      from: { path: '^src/sources/([^/]+)/' },
      to: { path: '^src/sources/[^/]+/', pathNot: '^src/sources/$1/' },
    },
    layer(
      'sources',
      ['journal/(?!types\\.ts$|errors\\.ts$)', 'delivery/', 'hrms/', ...AROUND],
      'Sources write to the journal through PunchSink (src/journal/types.ts) only, and may tell its errors apart (errors.ts).',
    ),
    layer(
      'journal',
      ['sources/', 'delivery/', 'hrms/', ...AROUND],
      'The journal knows nothing of who writes or reads it.',
    ),
    layer(
      'delivery',
      ['sources/', 'journal/(?!types\\.ts$|errors\\.ts$)', ...AROUND],
      'Delivery reads the journal through DeliveryQueue (src/journal/types.ts) only.',
    ),
    layer(
      'hrms',
      ['sources/', 'journal/', 'delivery/', ...AROUND],
      'The HRMS client knows only HTTP and the contract.',
    ),
    layer(
      'sinks',
      ['sources/', 'journal/', 'delivery/', ...AROUND],
      'A sink (Frappe HR, Odoo, beside the seed HRMS of src/hrms) knows only HTTP, its server and SinkPunch.',
    ),
    {
      name: 'sim-stands-alone',
      comment: 'Simulators are independent peers: they may share protocol codecs, never the pipeline.',
      severity: 'error',
      from: { path: '^src/sim/' },
      to: { path: '^src/(journal|delivery|daemon|status|check|cli|employees|roster|demo|web|metrics)/' },
    },
    {
      name: 'cli-is-the-top',
      comment: 'Only the CLI imports the CLI.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-never-imports-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Files git neither tracks nor ignores (a scratch file) are not the project's: see .ci/untracked.cjs.
    exclude: { path: ['^(dist|node_modules)/', ...exactly(untrackedFiles())] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
