/** The one line to print when `version` (as `process.versions.node` gives it) is too old, else undefined. */
export declare function unsupportedNodeMessage(version: string): string | undefined;
