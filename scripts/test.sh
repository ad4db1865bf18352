#!/usr/bin/env bash
# Runs every test tier that this machine can provide. Agent CLIs are installed from npm, pinned,
# into a cache outside the repository and put on PATH. With CI=true a tier whose tool is missing
# fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION=2.1.332
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
mkdir -p "$tools"
if [ "$("$tools/node_modules/.bin/claude" --version 2>/dev/null | cut -d' ' -f1)" != "$CLAUDE_CODE_VERSION" ]; then
	echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $tools"
	npm install --prefix "$tools" --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null
fi
export PATH="$tools/node_modules/.bin:$PATH"
echo "claude $(claude --version)"

# A Docker engine and the test images (built offline from Debian packages; nothing is pulled).
SANDCASTLE_TOOLS="$tools" CLAUDE_CODE_VERSION="$CLAUDE_CODE_VERSION" scripts/provision-docker.sh

test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
go test -count=1 -timeout 30m ./... "$@"
