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
