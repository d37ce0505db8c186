#!/usr/bin/env bash
# Prints the path of the npm registry's build of Node <version> (its `node-linux-<arch>` package), fetched
# once into a cache outside the checkout, so a fresh clone (every CI run) does not fetch it again:
# $FORMS_CACHE_DIR, else $XDG_CACHE_HOME/forms-pipeline, else ~/.cache/forms-pipeline (without a HOME, the
# checkout's .data/). Used by `pnpm test:node22` and by the test that runs the scripts on Node 20.
# Usage: scripts/registry-node.sh 22.23.3
set -euo pipefail
version="$1"
arch=$(uname -m | sed 's/x86_64/x64/; s/aarch64/arm64/')
if [ -n "${FORMS_CACHE_DIR:-}" ]; then cache="$FORMS_CACHE_DIR"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then cache="$XDG_CACHE_HOME/forms-pipeline"
elif [ -n "${HOME:-}" ]; then cache="$HOME/.cache/forms-pipeline"
else cache="$(cd "$(dirname "$0")/.." && pwd)/.data"; fi
dir="$cache/node-$version"
node="$dir/node_modules/node-linux-$arch/bin/node"
if ! [ -x "$node" ]; then
  # Into a folder of its own first, then moved: two runs fetching at once never see half a Node.
  mkdir -p "$cache"
  partial=$(mktemp -d "$cache/.node-$version.XXXXXX")
  npm install --prefix "$partial" --no-save --no-package-lock --silent "node-linux-$arch@$version" >&2
  mv -T "$partial" "$dir" 2>/dev/null || rm -rf "$partial"
fi
echo "$node"
