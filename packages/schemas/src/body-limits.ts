/**
 * What a request body may be before its schema is even looked at. The gateway enforces these and
 * /openapi.json states them, from here.
 * - submission: 16 KiB fits every field at its cap.
 * - careers: a CV of 5 MiB is about 6.7 MiB in base64, and the other fields add at most a few tens of KiB;
 *   7 MiB leaves room for both and no more. Over it, only the CV can be at fault.
 * - mcp: JSON-RPC messages are small; the largest is a tools/call with a few arguments.
 * - depth: our deepest schema is 2 levels (careers-apply's cvFile) and MCP tool arguments are flat; 32 leaves
 *   room for any honest client. V8's JSON.parse copes with any depth, but a recursive walk of the result (a
 *   normaliser, a logger, JSON.stringify) overflows the stack at a few thousand levels, which 16 KiB reaches.
 * - members: object members and array items in all, at any depth. Our largest form has about 15 fields and
 *   MCP arguments a handful; 1,000 leaves room for any honest client's extras. Both this and the depth are
 *   checked on the raw text before it is parsed: within careers' 7 MiB, a `[[[…]]]` took 0.9–1.8 s of
 *   JSON.parse and a `[{},{},…]` 1.3 s of parse and walk, the event loop stalled for every other request.
 */
export const BODY_LIMITS = {
  submissionBytes: 16 * 1024,
  careersBytes: 7 * 1024 * 1024,
  mcpBytes: 64 * 1024,
  depth: 32,
  members: 1_000,
} as const;
