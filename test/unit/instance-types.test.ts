import instanceNetwork from '../../assets/instance-network.json';
import { architectureOf, MAX_RUNNERS, RUNNER_IMAGE, SSM_INSTANCE_INFORMATION_PAGE } from '../../lib/instance-types';

describe('architectureOf: Graviton (arm64) or x86_64 from the instance type name', () => {
  // From AWS's instance type documentation: Graviton families carry a "g" right after the generation digit, plus a1.
  const cases: [string, 'arm64' | 'x86_64'][] = [
    ['c7g.large', 'arm64'], ['m7gd.xlarge', 'arm64'], ['c6gn.large', 'arm64'], ['t4g.micro', 'arm64'], ['r8g.large', 'arm64'],
    ['im4gn.large', 'arm64'], ['is4gen.large', 'arm64'], ['x2gd.medium', 'arm64'], ['a1.large', 'arm64'], ['hpc7g.4xlarge', 'arm64'], ['g5g.xlarge', 'arm64'],
    ['m7i.large', 'x86_64'], ['m7i-flex.large', 'x86_64'], ['c7a.large', 'x86_64'], ['c5n.large', 'x86_64'], ['t3.micro', 'x86_64'], ['g4dn.xlarge', 'x86_64'],
    ['g5.xlarge', 'x86_64'], ['i3en.large', 'x86_64'], ['r7iz.large', 'x86_64'], ['m5zn.large', 'x86_64'], ['x2iedn.xlarge', 'x86_64'], ['inf2.xlarge', 'x86_64'],
  ];
  for (const [type, arch] of cases) test(`${type} → ${arch}`, () => expect(architectureOf(type)).toBe(arch));

  test('not an instance type, or a family that does not run Amazon Linux 2023 → null', () => {
    for (const bad of ['big', 'c7g', 'c7g.', '.large', 'C7G.LARGE', 'q9.large', 'mac2.metal', 'mac1.metal', 'c7g.large ', '']) expect(architectureOf(bad)).toBeNull();
  });

  test('every type of assets/instance-network.json has an architecture', () => {
    const types = Object.keys(instanceNetwork).filter((k) => !k.startsWith('$') && !k.startsWith('_'));
    expect(types.length).toBeGreaterThan(20);
    for (const t of types) expect({ t, arch: architectureOf(t) }).toEqual({ t, arch: expect.stringMatching(/^(arm64|x86_64)$/) });
  });

  test('one image per architecture: AWS\'s public Amazon Linux 2023 parameters, resolved by RunInstances', () => {
    expect(RUNNER_IMAGE).toEqual({
      arm64: 'resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64',
      x86_64: 'resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
    });
  });

  test('the runner limit fits one DescribeInstanceInformation page (its maximum is 50)', () => {
    expect(SSM_INSTANCE_INFORMATION_PAGE).toBe(50);
    expect(MAX_RUNNERS).toBeLessThanOrEqual(SSM_INSTANCE_INFORMATION_PAGE);
  });
});
