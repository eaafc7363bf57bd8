// A small rule set, checked by `npm run lint` (part of `npm test`): promises that nobody awaits or
// catches (a failure there escapes the run's cleanup), and the escape hatches the code marks with
// eslint-disable comments (`any`, `require`) so each one stays deliberate.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'cdk.out/**', '.tools/**', 'crates/**', 'results/**', '**/*.generated.ts', '**/*.d.ts'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  // Product code names its types; tests and the rehearsal read raw CloudFormation JSON.
  { files: ['bin/**/*.ts', 'lib/**/*.ts', 'lambda/**/*.ts', 'runner/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'error' } },
);
