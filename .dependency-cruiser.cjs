/**
 * The layer rule of s3-access-bench (ARCHITECTURE.md "Rooms"), checked by `npm test`:
 *
 *   runner/core → runner/endpoint → runner/methods, runner/workloads (descriptors, then their
 *   implementations) → runner/catalog.ts, runner/results → runner/run → runner/report → runner/cli
 *
 * Each layer imports only the layers below it. Descriptors (runner/methods/NAME.ts,
 * runner/workloads/NAME.ts and their catalogs) never reach an implementation, so whatever checks
 * a matrix — the CLI's planner, the ValidateInput Lambda — loads no client or workload code; the
 * Lambdas and the CDK app use descriptors and the shared layout, never implementations.
 *
 * Implementation is a place, not a list of names: in runner/methods/ and runner/workloads/, the
 * `kit/` folder (helpers of the implementations: mount sessions, readers, the threads' entry),
 * `index.ts` (descriptors joined with their implementations) and each NAME.impl.ts /
 * NAME.thread.ts. Everything else directly in those folders is a descriptor or a catalog
 * (test/unit/layout.test.ts fails on any other file there: a new helper goes to kit/, or to
 * runner/core when descriptors need it).
 */
const KIT = '^runner/(methods|workloads)/kit/';
const IMPLEMENTATION = `${KIT}|^runner/(methods|workloads)/(index|[^/]+\\.(impl|thread))\\.ts$`;
const DESCRIPTOR_SIDE = '^runner/(methods|workloads)/[^/]+\\.ts$';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'modules import each other: move the shared part down a layer', from: {}, to: { circular: true } },
    {
      name: 'core-is-the-bottom', severity: 'error',
      comment: 'runner/core holds the shared types, vocabulary and helpers: it imports nothing above it',
      from: { path: '^runner/core/' }, to: { path: '^runner/(?!core/)' },
    },
    {
      name: 'endpoint-above-core-only', severity: 'error',
      comment: 'runner/endpoint (S3 targets, embedded server, reference client) builds on runner/core only',
      from: { path: '^runner/endpoint/' }, to: { path: '^runner/(?!core/|endpoint/)' },
    },
    {
      name: 'methods-and-workloads-below-run', severity: 'error',
      comment: 'methods and workloads are written against core interfaces; they know nothing of runs, reports or the CLI',
      from: { path: '^runner/(methods|workloads)/' }, to: { path: '^runner/(run|report|cli|aws|results)/|^runner/catalog\\.ts$' },
    },
    {
      name: 'methods-and-workloads-apart', severity: 'error',
      comment: 'a method does not depend on a workload nor the other way round',
      from: { path: '^runner/methods/' }, to: { path: '^runner/workloads/' },
    },
    {
      name: 'workloads-apart-from-methods', severity: 'error',
      comment: 'a workload is written against StorageSession / FileSystemAccess, not a method',
      from: { path: '^runner/workloads/' }, to: { path: '^runner/methods/' },
    },
    {
      name: 'descriptors-load-no-implementation', severity: 'error',
      comment: 'catalogs and descriptors are data: checking a matrix must not load clients, mounts or workload code',
      from: { path: '^runner/(methods|workloads)/catalog\\.ts$|^runner/catalog\\.ts$' },
      to: { path: `${IMPLEMENTATION}|^runner/endpoint/`, reachable: true },
    },
    {
      name: 'descriptors-are-data', severity: 'error',
      comment: 'a descriptor (runner/methods/NAME.ts, runner/workloads/NAME.ts) imports core and other descriptors only: what descriptors share goes to runner/core, what implementations share to kit/',
      from: { path: DESCRIPTOR_SIDE, pathNot: IMPLEMENTATION },
      to: { path: `${IMPLEMENTATION}|^runner/endpoint/` },
    },
    {
      name: 'kit-serves-its-folder', severity: 'error',
      comment: 'kit/ holds the helpers of one folder\'s implementations: runs and the CLI reach them through index.ts, never directly',
      from: { path: '^runner/(?!(methods|workloads)/)' },
      to: { path: KIT },
    },
    {
      name: 'plan-on-descriptors', severity: 'error',
      comment: 'runner/plan (the measured model of an AWS execution) is read by ValidateInput, the CLI and the scripts: it builds on core, descriptors and the shared instance facts, never on implementations, endpoints, runs, reports or the CLI',
      from: { path: '^runner/plan/' }, to: { path: `${IMPLEMENTATION}|^runner/(endpoint|run|report|cli|aws|results)/|^lib/(?!instance-types\\.ts$)` },
    },
    {
      name: 'plan-loads-no-implementation', severity: 'error',
      comment: 'whatever imports runner/plan (ValidateInput) must not reach a client or workload implementation through it',
      from: { path: '^runner/plan/' }, to: { path: `${IMPLEMENTATION}|^runner/endpoint/`, reachable: true },
    },
    {
      name: 'results-below-run', severity: 'error',
      comment: 'runner/results (records, writer, manifests) is read by run and report, and imports neither',
      from: { path: '^runner/results/' }, to: { path: '^runner/(run|report|cli|aws|methods|workloads|endpoint)/' },
    },
    {
      name: 'report-below-run', severity: 'error',
      comment: 'the report reads results; it never runs anything and never loads implementations',
      from: { path: '^runner/report/' }, to: { path: `^runner/(run|cli|aws|endpoint)/|${IMPLEMENTATION}` },
    },
    {
      name: 'run-below-cli', severity: 'error',
      comment: 'runner/run carries out runs; the CLI (runner/cli) sits on top',
      from: { path: '^runner/(run|aws)/' }, to: { path: '^runner/cli/' },
    },
    {
      name: 'lambdas-and-cdk-use-descriptors', severity: 'error',
      comment: 'the Lambdas and the CDK app import descriptors and the shared layout, never method or workload implementations, runs or the CLI',
      from: { path: '^(lambda|lib|bin)/' }, to: { path: `${IMPLEMENTATION}|^runner/(run|cli)/`, reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.generated\\.ts$|\\.d\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    moduleSystems: ['cjs', 'es6'],
  },
};
