#!/usr/bin/env bash
# Installs nektos/act, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH. The act tier of the tests runs the
# README's and `sandcastle init`'s workflows under it, against the local Docker engine. Safe to
# run again: the pinned version, once installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
ACT_VERSION=v0.2.89
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
bin="$tools/bin"
if [ "$("$bin/act" --version 2>/dev/null | head -n 1)" != "act version ${ACT_VERSION#v}" ]; then
	command -v go >/dev/null || { echo "install-act: go not found" >&2; exit 1; }
	echo "install-act: go install act@$ACT_VERSION into $bin" >&2
	GOBIN="$bin" go install "github.com/nektos/act@$ACT_VERSION" >&2
fi
echo "$bin"
