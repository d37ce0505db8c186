#!/bin/sh
# The root package's postinstall: makes node_modules/.bin/node a link to the project's Node binary (the
# node-linux-* optional dependency) instead of pnpm's shell shim, which runs node as a child of a shell:
# one more process per `node` and, on Ctrl-C, a shell that dies of the signal after node exits 0, which
# pnpm reports as a failure. `scripts/setup.sh --own-node` removes the link afterwards.
set -eu
cd "$(dirname "$0")/.."
for binary in node_modules/node-linux-*/bin/node; do
  [ -x "$binary" ] && ln -sf "../${binary#node_modules/}" node_modules/.bin/node
done
exit 0
