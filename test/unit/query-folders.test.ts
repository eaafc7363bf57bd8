import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_QUERIES } from '../../runner/report/model-queries.generated';
import { modelQueries, namedQueries, namedQuery } from '../../runner/report/results-db';
import { UserError } from '../../runner/core/errors';
import { AWS_FACTS } from '../../runner/plan/aws-facts';

const folder = (use: 'model' | 'adhoc') => readdirSync(join(__dirname, '..', '..', 'assets', 'queries', use)).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();

describe('queries split by use: assets/queries/model/ (the report model reads them) and adhoc/ (for users)', () => {
  test('MODEL_QUERIES is the model folder\'s file list (regenerate with `npm run gen` after adding one)', () => {
    expect([...MODEL_QUERIES]).toEqual(folder('model'));
    expect(modelQueries().map((q) => q.name)).toEqual(folder('model'));
  });

  test('every query has one name: no file in both folders, every file a named query of its use', () => {
    expect(folder('model').filter((n) => folder('adhoc').includes(n))).toEqual([]);
    expect(namedQueries().map((q) => `${q.use}/${q.name}`).sort()).toEqual([...folder('model').map((n) => `model/${n}`), ...folder('adhoc').map((n) => `adhoc/${n}`)].sort());
  });

  test('a name finds its file; an unknown one is a user error listing both folders\' names', () => {
    expect(namedQuery('web_serving')).toMatchObject({ use: 'adhoc', sql: expect.stringContaining('FROM results') });
    expect(namedQuery('report_cells').use).toBe('model');
    let err: unknown;
    try { namedQuery('webserving'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(UserError);
    expect(err).toMatchObject({ problem: 'no query named "webserving"', fix: `name one of the files in assets/queries/: adhoc: ${folder('adhoc').join(', ')}; model: ${folder('model').join(', ')}` });
  });
});

describe('the measured model counts the queries Aggregate runs', () => {
  test('AWS_FACTS.summaryQueries is the number of model queries', () => {
    expect(AWS_FACTS.summaryQueries).toBe(MODEL_QUERIES.length);
  });
});
