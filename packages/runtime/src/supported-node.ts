/**
 * The Node releases the apps run on: 24 LTS (what CI, the benchmarks and the images use) and 22 from 22.15
 * (the OpenTelemetry SDK's floor), in maintenance until 2027-04-30. One place for the rule; the check runs
 * first in every entry point (`require-supported-node.ts`) so an older Node stops with one line, not with
 * the first library that trips over it.
 */
const SUPPORTED_NODE = { minimum: [22, 15], recommended: 24 } as const;

/** The one line to print when `version` (as `process.versions.node` gives it) is too old, else undefined. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = SUPPORTED_NODE.minimum;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `forms: Node ${needMajor}.${needMinor} or newer is needed (${SUPPORTED_NODE.recommended} LTS recommended; scripts/setup.sh brings it), found ${version}`;
}
