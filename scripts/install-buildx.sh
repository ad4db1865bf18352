#!/usr/bin/env bash
# Installs docker buildx, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH; it runs there as a standalone `buildx`.
# scripts/release-images.sh needs it where the docker CLI has no buildx plugin (Debian bookworm
# packages none). Safe to run again: the pinned version, once installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
BUILDX_VERSION=v0.38.2
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
bin="$tools/go/bin"
# go install leaves no version in buildx's own output; the module version is in the binary.
installed=$(go version -m "$bin/buildx" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/docker/buildx" { print $3 }' || true)
if [ "$installed" != "$BUILDX_VERSION" ]; then
	command -v go >/dev/null || { echo "install-buildx: go not found" >&2; exit 1; }
	echo "install-buildx: go install buildx@$BUILDX_VERSION into $bin (a few minutes)" >&2
	GOBIN="$bin" go install "github.com/docker/buildx/cmd/buildx@$BUILDX_VERSION" >&2
fi
echo "$bin"
