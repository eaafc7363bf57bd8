import installSpec from '../../assets/install.json';

/**
 * What each method and workload needs installed (assets/install.json, the single source that
 * scripts/setup.mjs installs from), for messages that name the fix.
 */
export const INSTALL = installSpec as unknown as {
  components: Record<string, { what: string; estimateSeconds?: number }>;
  methods: Record<string, string[]>;
  workloads: Record<string, string[]>;
};

/** The command that installs a method or workload here, or null when it needs nothing installable (S3 API, AWS-only methods). */
export function installCommand(name: string): string | null {
  const needs = INSTALL.methods[name] ?? INSTALL.workloads[name];
  return needs && needs.length ? `npm run setup -- ${name}` : null;
}
