import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One file a patch under patches/ changes: the package, the file in it, and the lines the patch adds. */
export type PatchedFile = { name: string; file: string; added: string[] };

/**
 * The files our pnpm patches change (`patchedDependencies` in pnpm-workspace.yaml, one
 * `<name>@<version>.patch` per package, a scope's `/` written `__`), read from the patches themselves, so an
 * image can be checked to carry the patched code (a build that skipped the patch would not).
 */
export function patchedFiles(root: string): PatchedFile[] {
  const dir = join(root, 'patches');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .flatMap((f) => {
      const name = f.slice(0, f.lastIndexOf('@')).replace('__', '/');
      const files: PatchedFile[] = [];
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
        if (line.startsWith('+++ b/')) files.push({ name, file: line.slice(6), added: [] });
        else if (line.startsWith('+') && !line.startsWith('+++') && line.trim() !== '+')
          files.at(-1)?.added.push(line.slice(1));
      }
      return files;
    });
}
