#!/bin/sh
# install-agent.sh AGENT DEST: puts the pinned CLI of AGENT, for the architecture the build runs
# on, under DEST: the files in DEST/opt/AGENT, its program linked into DEST/usr/local/bin. The
# Dockerfiles run it in a stage of its own and copy DEST into the image, so that the image gets
# the one native binary of its platform and nothing of npm.
#
# The npm packages of these CLIs pick a native binary per platform in optional dependencies (and
# claude-code's postinstall copies it once more); the platform's package alone is fetched here,
# with npm pack, which runs no install script.
#
# Environment: AGENT_CLIS, the file of pinned versions (default /src/scripts/agent-clis.env, where
# the Dockerfiles copy scripts/agent-clis.env); TARGETARCH (set by BuildKit), the architecture,
# amd64 or arm64; without it (the classic builder), the one this stage runs on.
set -eu
agent=${1:?usage: install-agent.sh AGENT DEST}
dest=${2:?usage: install-agent.sh AGENT DEST}

die() {
	echo "install-agent: $*" >&2
	exit 1
}

# shellcheck disable=SC1090
. "${AGENT_CLIS:-/src/scripts/agent-clis.env}"

arch=${TARGETARCH:-$(dpkg --print-architecture)}
case $arch in
amd64) npm_arch=x64 ;;
arm64) npm_arch=arm64 ;;
*) die "architecture $arch: only amd64 and arm64 have builds of the agent CLIs" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# unpack SPEC: the npm package SPEC, unpacked into $work/package.
unpack() {
	(cd "$work" && npm pack --silent "$1" >/dev/null) || die "npm pack $1 failed"
	tar -xzf "$work"/*.tgz -C "$work" && rm "$work"/*.tgz
}

# install PROGRAM FILE...: FILEs (relative to $work/package) into DEST/opt/AGENT, PROGRAM the
# first of them, linked as DEST/usr/local/bin/PROGRAM.
install_files() {
	program=$1
	shift
	mkdir -p "$dest/opt/$agent" "$dest/usr/local/bin"
	for f in "$@"; do
		mkdir -p "$dest/opt/$agent/$(dirname "$f")"
		cp -a "$work/package/$f" "$dest/opt/$agent/$f"
	done
	[ -x "$dest/opt/$agent/$1" ] || die "$1 of $agent is not an executable"
	ln -s "/opt/$agent/$1" "$dest/usr/local/bin/$program"
}

case $agent in
claude-code)
	unpack "@anthropic-ai/claude-code-linux-$npm_arch@$CLAUDE_CODE_VERSION"
	install_files claude claude
	;;
codex)
	# The platform builds are versions of @openai/codex itself; rg beside codex is found by it.
	unpack "@openai/codex@$CODEX_VERSION-linux-$npm_arch"
	triple=$(cd "$work/package/vendor" && echo *-unknown-linux-musl)
	install_files codex "vendor/$triple/bin/codex" "vendor/$triple/codex-path"
	;;
opencode)
	unpack "opencode-linux-$npm_arch@$OPENCODE_VERSION"
	install_files opencode bin/opencode
	;;
copilot)
	unpack "@github/copilot-linux-$npm_arch@$COPILOT_VERSION"
	install_files copilot copilot
	;;
pi)
	# pi is a Node.js program; it needs Node.js 20.6 or later, newer than Debian's, so the
	# image gets Node.js's own build from npm beside it.
	unpack "node-linux-$npm_arch@$NODE_VERSION"
	install_files node bin/node
	npm install --silent --prefix "$dest/opt/pi" --omit=dev --no-audit --no-fund \
		"@mariozechner/pi-coding-agent@$PI_VERSION" || die "npm install of pi failed"
	ln -s /opt/pi/node_modules/.bin/pi "$dest/usr/local/bin/pi"
	;;
cursor)
	# Not on npm: Cursor's release archive.
	mkdir -p "$dest/opt/cursor" "$dest/usr/local/bin"
	curl -fsSL "https://downloads.cursor.com/lab/$CURSOR_VERSION/linux/$npm_arch/agent-cli-package.tar.gz" |
		tar -xz --strip-components=1 -C "$dest/opt/cursor" || die "downloading Cursor's CLI $CURSOR_VERSION failed"
	ln -s /opt/cursor/cursor-agent "$dest/usr/local/bin/agent"
	;;
*)
	die "unknown agent $agent"
	;;
esac
