// Plain JavaScript, as require-supported-node.js: both run before any TypeScript does, on whatever Node the
// user has, which may be too old to strip types (its types: supported-node.d.ts).

/**
 * The Node releases the apps run on: 24 LTS (what CI, the benchmarks and the images use) and 22 from 22.18
 * (the first that runs TypeScript without a flag; the OpenTelemetry SDK needs 22.15), in maintenance until
 * 2027-04-30. One place for the rule; the check runs first in every entry point so an older Node stops with
 * one line, not with the first library (or `.ts` file) that trips over it.
 */
const SUPPORTED_NODE = { minimum: [22, 18], recommended: 24 };

/**
 * The one line to print when `version` (as `process.versions.node` gives it) is too old, else undefined.
 * @param {string} version
 * @returns {string | undefined}
 */
export function unsupportedNodeMessage(version) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = SUPPORTED_NODE.minimum;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `forms: Node ${needMajor}.${needMinor} or newer is needed (${SUPPORTED_NODE.recommended} LTS recommended; scripts/setup.sh brings it), found ${version}`;
}
