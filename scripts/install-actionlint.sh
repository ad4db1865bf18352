#!/usr/bin/env bash
# Installs actionlint, pinned, from the Go module proxy into the tools cache, outside the
# repository, and prints the directory to put on PATH. The tests run it on every workflow the
# project shows (README.md, docs/, `sandcastle init`). Safe to run again: the pinned version, once
# installed, is only checked.
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools).
set -euo pipefail
# shellcheck source=go-install.sh
. "$(dirname "$0")/go-install.sh"
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
go_install "$tools/go/bin" github.com/rhysd/actionlint/cmd/actionlint v1.7.12
