#!/usr/bin/env bash
# Installs the pinned agent CLIs from npm into the tools cache, outside the repository, and
# prints the directory to put on PATH. Safe to run again: installed versions are only checked.
#
#   $tools/node_modules/.bin   claude, codex, opencode, copilot (their packages carry native
#                              binaries, which provision-docker.sh copies into the test image)
#   $tools/pi/node_modules     pi, a Node.js program, in its own prefix so that the test image
#                              takes its dependencies and nothing else
#
# Environment: SANDCASTLE_TOOLS (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools),
# and the versions of scripts/agent-clis.env.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=agent-clis.env
. "$here/agent-clis.env"
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"

# installed PREFIX PACKAGE prints the version of PACKAGE under PREFIX, or nothing.
installed() {
	local pj="$1/node_modules/$2/package.json"
	[ -r "$pj" ] && sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pj" | head -n 1
}

# ensure PREFIX PACKAGE@VERSION...: one npm install for whatever is missing or another version.
ensure() {
	local prefix=$1 want=() spec
	shift
	for spec in "$@"; do
		[ "$(installed "$prefix" "${spec%@*}")" = "${spec##*@}" ] || want+=("$spec")
	done
	[ ${#want[@]} -eq 0 ] && return
	command -v npm >/dev/null || { echo "install-agents: npm not found: install nodejs and npm" >&2; exit 1; }
	echo "install-agents: npm install ${want[*]} into $prefix" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${want[@]}" >&2
}

ensure "$tools" \
	"@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
	"@openai/codex@$CODEX_VERSION" \
	"opencode-ai@$OPENCODE_VERSION" \
	"@github/copilot@$COPILOT_VERSION"
ensure "$tools/pi" "@mariozechner/pi-coding-agent@$PI_VERSION"
ln -sf "$tools/pi/node_modules/.bin/pi" "$tools/node_modules/.bin/pi"
echo "$tools/node_modules/.bin"
