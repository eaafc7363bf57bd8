/** @type {import('jest').Config} */
// Two tiers (docs/testing.md): `unit` — pure policy, no server, no mount, no child process, run in
// parallel (`npm run test:unit`, ≤ 60 s); `integration` — real servers, real mounts, real CLI
// processes, one file at a time: a cold start drops the kernel's caches for the whole host, and
// Mountpoint forgets its local (not yet uploaded) directories when the kernel forgets them.
const swc = { '^.+\\.tsx?$': ['@swc/jest'] };
// The HTML report's charts (vega, vega-lite) ship ES modules only: swc turns them and their d3
// helpers into CommonJS for the tests. vega-canvas's Node build needs top-level await, so tests
// load its browser build, as the esbuild bundle does (scripts/build.mjs).
// runner/install/*.mjs is plain Node (setup runs it before any build): swc turns it into CommonJS too.
const esModule = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const esm = { '/node_modules/.+\\.m?js$': esModule, '/runner/install/.+\\.mjs$': esModule };
const shared = {
  testEnvironment: 'node',
  // swc strips types only; `tsc --noEmit` type-checks as a separate step of `npm test`.
  transform: { ...swc, ...esm },
  transformIgnorePatterns: ['/node_modules/(?!(vega|vega-[^/]+|d3-[^/]+|internmap|delaunator|robust-predicates|json-stringify-pretty-compact)/)'],
  moduleNameMapper: { '^vega-canvas$': '<rootDir>/node_modules/vega-canvas/build/vega-canvas.browser.js' },
};
module.exports = {
  testTimeout: 120000,
  projects: [
    // cdk-outdir.ts: each test file's CDK Apps write into a folder of its own, removed at its end.
    // The guard fails a unit test that opens a connection or starts a process (test/helpers/unit-guard.ts).
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.test.ts'], setupFilesAfterEnv: ['<rootDir>/test/helpers/unit-guard.ts', '<rootDir>/test/helpers/cdk-outdir.ts'] },
    { ...shared, displayName: 'integration', roots: ['<rootDir>/test'], testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/test/unit/'], setupFilesAfterEnv: ['<rootDir>/test/helpers/cdk-outdir.ts'] },
  ],
};
