import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The names of every package an app needs at run time, read from this checkout's own install: its
 * `dependencies`, theirs (workspace packages included), optional dependencies that are installed, and
 * required peers, transitively. Optional peers are left out: pnpm fills them from whatever the workspace
 * has, so an image may carry one (see checkImageContents).
 */
export function productionPackages(appDir: string): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (dir: string) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    const manifest = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8'));
    const optionalPeers = Object.entries(
      (manifest.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>,
    )
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    const wanted = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers.includes(name)),
    ];
    for (const name of wanted) {
      const found = resolvePackage(real, name);
      if (!found) continue; // an optional dependency for another platform
      // An alias (`string-width-cjs` → string-width) is installed under the real package's name.
      names.add(JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')).name ?? name);
      visit(found);
    }
  };
  visit(appDir);
  return names;
}

/** Where Node would find package `name` from `dir`: the nearest node_modules/<name> going up. */
function resolvePackage(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(at) === at) return undefined;
  }
}
