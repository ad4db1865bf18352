#!/usr/bin/env bash
# Installs docker buildx, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH; it runs there as a standalone `buildx`.
# scripts/release-images.sh needs it where the docker CLI has no buildx plugin (Debian bookworm
# packages none). Safe to run again: the pinned version, once installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
# shellcheck source=go-install.sh
. "$(dirname "$0")/go-install.sh"
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
# go install leaves no version in buildx's own output; go_install reads the module's from the
# binary. A first install takes a few minutes.
go_install "$tools/go/bin" github.com/docker/buildx/cmd/buildx v0.38.2
