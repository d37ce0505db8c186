import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

// One ESM file for production. Workspace packages ship TypeScript source, so they are bundled in;
// every third-party dependency stays external and is installed beside dist/ as usual.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  // Chunks for dynamic imports: main.ts loads the tracing SDK (only with an OTLP endpoint), then the app,
  // each when it is imported; inlined, their imports would all be hoisted and loaded first.
  splitting: true,
  target: 'node22',
  clean: true,
  noExternal: [/^@forms\//],
  // The agent surface reads its prose, document templates, widget scripts and styles at start-up
  // (content-files.ts); copied with their src/ layout so the bundle finds them at the same relative path.
  async onSuccess() {
    cpSync('src/agent-surface/content', 'dist/agent-surface/content', {
      recursive: true,
      filter: (source) => !source.endsWith('.ts'),
    });
  },
});
