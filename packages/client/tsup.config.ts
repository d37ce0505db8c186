import { defineConfig } from 'tsup';

// The files a site loads: one minified ESM file each, for browsers and Node. The core imports only types
// from @forms/schemas, so it bundles to our own code; checks bundles valibot and the schemas it uses.
export default defineConfig({
  entry: { index: 'src/index.ts', checks: 'src/checks.ts' },
  format: ['esm'],
  platform: 'neutral',
  target: 'es2020',
  minify: true,
  clean: true,
  splitting: false,
  noExternal: [/.*/],
});
