#!/usr/bin/env bash
# `pnpm test:node22`: the proof that Node 22 (in maintenance until 2027-04-30) still runs the project, as CI
# runs it after the full suite on Node 24: the unit tier, and the start-up smoke (`pnpm start`'s launcher on
# that Node: the gateway and the worker answer, one submission delivered, a clean SIGTERM, no warning).
# The Node comes from the npm registry's `node-linux-<arch>` build, cached outside the checkout
# (scripts/registry-node.sh; about 6 s the first time). Usage: scripts/test-on-node.sh [version], default
# 22.23.3.
set -euo pipefail
cd "$(dirname "$0")/.."
node=$(bash scripts/registry-node.sh "${1:-22.23.3}")
echo "test-on-node: $("$node" --version)"
# Not through pnpm: pnpm puts the project's own Node 24 first on PATH. vitest runs its files on the Node
# that runs it, and the smoke test spawns the launcher with that same Node.
"$node" node_modules/vitest/vitest.mjs run --project unit
"$node" node_modules/vitest/vitest.mjs run --project integration test/integration/start-prints-library-warnings.test.ts
