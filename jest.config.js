/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // swc strips types only; `tsc --noEmit` type-checks as a separate step of `npm test`.
  transform: { '^.+\\.tsx?$': ['@swc/jest'] },
  testTimeout: 120000,
  // One test file at a time: a cold start drops the kernel's caches for the whole host, and
  // Mountpoint forgets its local (not yet uploaded) directories when the kernel forgets them, so a
  // mount test running beside another one lost directories mid-test (ENOENT, short listings).
  maxWorkers: 1,
};

// The HTML report's charts (vega, vega-lite) ship ES modules only: swc turns them and their d3
// helpers into CommonJS for the tests. vega-canvas's Node build needs top-level await, so tests
// load its browser build, as the esbuild bundle does (scripts/build.mjs).
Object.assign(module.exports.transform, {
  '/node_modules/.+\\.m?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
});
module.exports.transformIgnorePatterns = ['/node_modules/(?!(vega|vega-[^/]+|d3-[^/]+|internmap|delaunator|robust-predicates|json-stringify-pretty-compact)/)'];
module.exports.moduleNameMapper = { '^vega-canvas$': '<rootDir>/node_modules/vega-canvas/build/vega-canvas.browser.js' };
