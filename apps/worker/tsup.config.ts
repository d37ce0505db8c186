import { defineConfig } from 'tsup';

// One ESM file for production. Workspace packages ship TypeScript source, so they are bundled in;
// every third-party dependency stays external and is installed beside dist/ as usual.
export default defineConfig({
  entry: ['src/main.ts', 'src/healthcheck.ts'],
  format: ['esm'],
  target: 'node20',
  clean: true,
  noExternal: [/^@forms\//],
});
