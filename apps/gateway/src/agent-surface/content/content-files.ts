import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';

/**
 * The content folder: this module's folder when run from source (node, vitest). The build bundles this
 * module into dist/main.js and copies the folder's data files to dist/agent-surface/content/ (see
 * tsup.config.ts), so both layouts find `data/services.json` at the same relative path.
 */
export const CONTENT_DIR = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('.', import.meta.url)
    : new URL('./agent-surface/content/', import.meta.url),
);

/** Reads a file of the content folder; a missing file stops start-up with its path. */
export function readContentFile(file: string, dir = CONTENT_DIR): string {
  try {
    return readFileSync(join(dir, file), 'utf8');
  } catch (err) {
    throw new Error(`content file ${file} could not be read: ${(err as Error).message}`, { cause: err });
  }
}

/** Reads and checks a JSON data file; a malformed one stops start-up with the file and the field at fault. */
export function readDataFile<S extends v.GenericSchema>(file: string, schema: S, dir = CONTENT_DIR): v.InferOutput<S> {
  let json: unknown;
  try {
    json = JSON.parse(readContentFile(file, dir));
  } catch (err) {
    if (err instanceof SyntaxError) throw new Error(`content file ${file} is not JSON: ${err.message}`);
    throw err;
  }
  const result = v.safeParse(schema, json);
  if (!result.success) {
    const issue = result.issues[0];
    throw new Error(`content file ${file}: ${v.getDotPath(issue) ?? '(top level)'}: ${issue.message}`);
  }
  return result.output;
}

/**
 * A served document's text with `{{slot}}` gaps, read from `documents/`. The text is written as served
 * (Markdown); the code fills only the parts computed from the catalogue or the configuration.
 */
export function fillTemplate(file: string, slots: Record<string, string>, dir = CONTENT_DIR): string {
  return readContentFile(file, dir).replace(/\{\{(\w+)\}\}/g, (_, slot: string) => {
    if (!Object.hasOwn(slots, slot)) {
      throw new Error(`content file ${file}: unknown slot {{${slot}}} (known: ${Object.keys(slots).join(', ')})`);
    }
    return slots[slot]!;
  });
}
