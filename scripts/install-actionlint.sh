#!/usr/bin/env bash
# Installs actionlint, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH. The tests run it on every workflow the
# project shows (README, `sandcastle init`). Safe to run again: the pinned version, once
# installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
ACTIONLINT_VERSION=v1.7.12
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
bin="$tools/go/bin"
if [ "$("$bin/actionlint" -version 2>/dev/null | head -n 1)" != "$ACTIONLINT_VERSION" ]; then
	command -v go >/dev/null || { echo "install-actionlint: go not found" >&2; exit 1; }
	echo "install-actionlint: go install actionlint@$ACTIONLINT_VERSION into $bin" >&2
	GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
fi
echo "$bin"
