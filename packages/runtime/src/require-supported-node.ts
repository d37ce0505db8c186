import { unsupportedNodeMessage } from './supported-node.ts';

// Imported first by every entry point, before anything that might fail on an older Node in its own words.
const message = unsupportedNodeMessage(process.versions.node);
if (message !== undefined) {
  console.error(message);
  process.exit(1);
}
