import installSpec from '../../assets/install.json';

/** Where a component is installed: this Debian/Ubuntu host, or an Amazon Linux 2023 runner. */
export type Place = 'local' | 'runner';

/** How a runner's setup time for a component is modelled (runner/plan/setup-model.ts): a term over a measured figure. */
export interface CostTerm {
  term: 'packages' | 'rpm' | 'autotools' | 'download' | 'wall' | 'cargo';
  /** Its key in assets/measured/runner-setup.json (a package set under `packages` for the `packages` term). */
  measured: string;
}

/** A component's local recipe (runner/install/setup.mjs installs it). */
interface LocalRecipe {
  /** vendor: a commercial package in no registry (setup checks for it and says where it comes from, never installs it). */
  kind: 'npm' | 'apt' | 'go' | 'pip' | 'venv' | 'cargo' | 'vendor';
  packages?: string[];
  package?: string;
  bin?: string;
  /** cargo: the project's crate folder (crates/NAME), built with its lockfile. */
  crate?: string;
  /** cargo: a crate of crates.io instead, installed at the component's version with its published lockfile. */
  registryCrate?: string;
  minRust?: string;
  /** Where the local build differs from the pin (s3fs: Debian's package). */
  version?: string;
  [more: string]: unknown;
}

/** A component's runner recipe (lib/runner-setup-script.ts writes it into the setup document). */
interface RunnerRecipe {
  /** vendor-rpm: the vendor's RPM at the pin, checked against a checksum given at deploy (lib/runner-setup-script.ts). */
  kind: 'preinstalled' | 'dnf' | 'rpm' | 'pip' | 'source' | 'cargo' | 'vendor-rpm';
  /** Amazon Linux 2023 packages, in the setup's one dnf transaction. */
  packages?: string[];
  /** pip: the wheel, installed at the component's version. */
  package?: string;
  /** What runs on runners where it is not the pin itself (mount-s3's release of the pinned crate). */
  version?: string;
  /** rpm: the release and its URL ({release}; $ARCH is the runner's). */
  release?: string;
  url?: string;
  /** source: the git repository and the tag ({version}). */
  repo?: string;
  tag?: string;
  /** A shell command that prints the installed version. */
  check: string;
  cost?: CostTerm[];
}

interface Component {
  /** A few words: what it is (setup's lines; docs/usage.md has the reasons). */
  what: string;
  /** The version pinned for both places, where it has one. */
  version?: string;
  /** What the pin is the version of, where not of the component itself (Mountpoint: its file system crate). */
  versionOf?: string;
  local: LocalRecipe;
  runner?: RunnerRecipe;
  /** Why the two places run different versions, or where the version comes from. */
  versionNote?: string;
  estimateSeconds: number;
}

export interface InstallRegistry {
  components: Record<string, Component>;
  base: string[];
  methods: Record<string, { needs: string[]; runsOn: Place[] }>;
  workloads: Record<string, string[]>;
  tests: string[];
}

/** The install registry (assets/install.json): every component, its pin, both places' recipes and its runner cost. */
export const INSTALL = installSpec as unknown as InstallRegistry;

/** The components a method or workload needs ([] for none, undefined for an unknown name). */
export function needsOf(name: string, registry: InstallRegistry = INSTALL): string[] | undefined {
  return registry.methods[name]?.needs ?? registry.workloads[name];
}

/** The command that installs a method or workload here, or null when it needs nothing setup installs (S3 API, AWS-only methods, a vendor's package). */
export function installCommand(name: string, registry: InstallRegistry = INSTALL): string | null {
  const needs = needsOf(name, registry);
  // A vendor's package is not installed by setup: the method's probe says where it comes from.
  const installable = (needs ?? []).filter((c) => registry.components[c]?.local.kind !== 'vendor');
  return installable.length ? `npm run setup -- ${name}` : null;
}

/** A component's version in one place: the local recipe's own where Debian's differs, else the pin. */
export function versionIn(component: string, place: Place, registry: InstallRegistry = INSTALL): string | undefined {
  const c = registry.components[component];
  return c?.[place]?.version ?? c?.version;
}

/**
 * What a method's client versions are, pinned, and where the two places differ: one line per
 * component it needs (`s3ab list`, the run facts).
 */
export function pinnedVersions(method: string, registry: InstallRegistry = INSTALL): string[] {
  return (needsOf(method, registry) ?? []).map((name) => {
    const local = versionIn(name, 'local', registry);
    const runner = versionIn(name, 'runner', registry);
    const c = registry.components[name];
    if (!runner) return `${name}: ${c.versionNote ?? 'no pin'}`;
    const label = c.versionOf ?? name;
    if (!c.runner) return `${label} ${local} (here only: no runner recipe)`;
    return local === runner ? `${label} ${runner} (here and on runners)` : `${label} ${local} here, ${runner} on runners`;
  });
}

/**
 * Every place a method claims to run without a recipe for one of its components there: what the
 * registry test refuses (an empty list when the registry is whole).
 */
export function missingRecipes(registry: InstallRegistry = INSTALL): string[] {
  const missing: string[] = [];
  for (const [method, { needs, runsOn }] of Object.entries(registry.methods)) {
    for (const name of needs) {
      const c = registry.components[name];
      if (!c) missing.push(`${method} needs "${name}", which is not a component`);
      else for (const place of runsOn) if (!c[place]) missing.push(`${method} runs on ${place === 'local' ? 'this host' : 'runners'}, but "${name}" has no ${place} recipe`);
    }
  }
  return missing;
}
