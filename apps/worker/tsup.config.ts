import { defineConfig } from 'tsup';

// One ESM file for production. Workspace packages ship TypeScript source, so they are bundled in;
// every third-party dependency stays external and is installed beside dist/ as usual.
export default defineConfig({
  entry: ['src/main.ts', 'src/healthcheck.ts'],
  format: ['esm'],
  // Chunks for dynamic imports: main.ts loads the tracing SDK (only with an OTLP endpoint), then the app,
  // each when it is imported; inlined, their imports would all be hoisted and loaded first.
  splitting: true,
  target: 'node22',
  clean: true,
  noExternal: [/^@forms\//],
});
