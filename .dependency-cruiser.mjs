/**
 * `pnpm check`'s import check (docs/dependencies.md says why this tool): no module may reach itself through
 * its imports. Type-only imports count (tsPreCompilationDeps) and so do dynamic ones: a circle through
 * either still ties two files into one unit that neither can be read, moved or tested without.
 */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module reaches itself through its imports: move what both need into a file of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.data|\\.turbo)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Workspace packages export their TypeScript sources: followed into them, a circle across two
    // packages is found as one inside a package is.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
