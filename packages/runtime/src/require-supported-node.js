import nodeModule from 'node:module';
import { unsupportedNodeMessage } from './supported-node.js';

// Imported first by every entry point, before anything that might fail on an older Node in its own words: by
// the built apps from their bundle, and by the package scripts that run TypeScript (`node --import
// @forms/runtime/require-supported-node …`), since a Node that cannot strip types fails on the `.ts` entry
// before any import in it runs.
const message = unsupportedNodeMessage(process.versions.node);
if (message !== undefined) {
  console.error(message);
  process.exit(1);
}

// Then Node's module compile cache (in the system's temporary directory, or NODE_COMPILE_CACHE): the code V8
// compiled and the TypeScript Node stripped are kept on disk (a default import: a named one would fail to link
// on a Node without it, before the check above could speak), so the next start of the same files reuses them.
// An `ops` command takes 0.7 s of CPU instead of 1.3, and a test run that starts hundreds of processes saves
// minutes (docs/testing.md#how-long-ci-takes). Where the directory cannot be written, Node runs on without it.
nodeModule.enableCompileCache();
