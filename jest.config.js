/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // swc strips types only; `tsc --noEmit` type-checks as a separate step of `npm test`.
  transform: { '^.+\\.tsx?$': ['@swc/jest'] },
  testTimeout: 120000,
  // Tests that start servers and mounts share 2 cores: keep the parallelism low.
  maxWorkers: 2,
};
