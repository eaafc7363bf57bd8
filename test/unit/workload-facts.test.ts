import { normalizeWorkloadFacts } from '../../runner/report/rows';

describe('workload facts: several parameter sets of one workload', () => {
  const rows = [
    { run_id: 'r', workload: 'fio-seq', workload_params: { files: '10', io: 'direct', direct: '1' }, methods: 3, repetitions: 2, records: 40 },
    { run_id: 'r', workload: 'fio-seq', workload_params: { files: '10', io: 'buffered', direct: '0' }, methods: 3, repetitions: 2, records: 40 },
    { run_id: 'r', workload: 'fio-seq', workload_params: { files: '10', io: 'direct,buffered' }, methods: 3, repetitions: 2, records: 40 },
    { run_id: 'r', workload: 'objects', workload_params: { files: '10' }, methods: 2, repetitions: 2, records: 12 },
  ];

  test('are merged key by key, every value shown, one entry per workload', () => {
    expect(normalizeWorkloadFacts(rows)).toEqual([
      { run_id: 'r', workload: 'fio-seq', workload_params: { direct: '0 | 1', files: '10', io: 'buffered | direct | direct,buffered' }, methods: 3, repetitions: 2, records: 40 },
      { run_id: 'r', workload: 'objects', workload_params: { files: '10' }, methods: 2, repetitions: 2, records: 12 },
    ]);
  });

  test('whatever order the engine returns them in', () => {
    expect(normalizeWorkloadFacts([...rows].reverse()).map((w) => w.workload_params))
      .toEqual(normalizeWorkloadFacts(rows).reverse().map((w) => w.workload_params));
  });
});
