#!/usr/bin/env bash
# Installs nektos/act, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH. The act tier of the tests runs the
# workflows README.md and docs/ show, and `sandcastle init`'s, under it, against the local Docker engine. Safe to
# run again: the pinned version, once installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
# shellcheck source=go-install.sh
. "$(dirname "$0")/go-install.sh"
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
go_install "$tools/bin" github.com/nektos/act v0.2.89
