#!/usr/bin/env bash
# Provisions a Docker engine and the images the Docker test tiers need, on a machine that reaches
# only Debian's package mirror, the Go module proxy and the npm registry: nothing is pulled from
# Docker Hub. Safe to run again: a second run only checks, in well under a second.
#
#   1. packages  apt-get install docker.io, debootstrap and curl when missing (apt-get update only when
#                the install cannot find them)
#   2. engine    start dockerd in the background when the engine does not answer, and wait for it
#   3. base      debian:bookworm-slim from debootstrap (minbase, git, ca-certificates) via
#                `docker import`; the root file system is cached as a tarball, so a daemon that lost
#                its images gets it back in seconds. The certificate authorities that this host
#                trusts beyond Debian's are added (see host_cas); rebuilt when they change
#   4. go        golang:1.26-bookworm: the base plus this host's Go toolchain, so that the
#                repository's Dockerfile builds here; rebuilt when the Go version or the base
#                change, skipped when the host's Go is not 1.26
#   5. clis      the pinned agent CLIs from npm in the tools cache (scripts/install-agents.sh,
#                shared with scripts/test.sh)
#   6. image     sandcastle-test:claude: the base plus the native claude binary, Debian's gh (the
#                package fetched with apt-get download, for the GitHub relay's tests) and an agent
#                user; rebuilt when the claude or gh version, the agent ids or the base image change
#   7. agents    sandcastle-test:agents: that image plus codex, opencode and copilot (their native
#                binaries) and pi (with this host's node); rebuilt when a version or the image
#                below changes
#
# These images stand in for Docker Hub's only in tests: GitHub's runner pulls the real ones when it
# builds the action image.
#
# Environment:
#   CLAUDE_CODE_VERSION…  agent CLI versions (defaults in scripts/agent-clis.env)
#   AGENT_UID, AGENT_GID  ids of the image's agent user (default 1000)
#   SANDCASTLE_TOOLS      tools cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools)
#   HOST_CA_BUNDLE        the CA bundle this host trusts (default /etc/ssl/certs/ca-certificates.crt)
#   DOCKER_HOST           an engine elsewhere; then it must already answer, nothing is started
#   DOCKERD_WAIT_SECONDS  how long to wait for a started dockerd (default 60)
set -Eeuo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=agent-clis.env
. "$here/agent-clis.env"
AGENT_UID="${AGENT_UID:-1000}"
AGENT_GID="${AGENT_GID:-1000}"
DOCKERD_WAIT_SECONDS="${DOCKERD_WAIT_SECONDS:-60}"
HOST_CA_BUNDLE="${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
BASE_IMAGE=debian:bookworm-slim
GO_IMAGE=golang:1.26-bookworm
GO_SERIES=go1.26
CLAUDE_IMAGE=sandcastle-test:claude
AGENTS_IMAGE=sandcastle-test:agents
SUITE=bookworm
INCLUDE=git,ca-certificates
tools="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
# The name records what went into the root file system, so changing it never reuses a stale one.
rootfs_tar="$tools/rootfs-$SUITE-minbase-${INCLUDE//,/-}.tar"
logdir="${TMPDIR:-/tmp}"

die() {
	printf 'provision: error: %s\n' "$*" >&2
	exit 1
}

# step NAME FUNC runs FUNC, which sets $outcome, and prints one line with its duration.
step() {
	local name=$1 start=$EPOCHREALTIME
	outcome=""
	current=$name
	"$2"
	printf 'provision: %-8s %-44s %6.1fs\n' "$name" "$outcome" "$(elapsed "$start")"
}

elapsed() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root for: $* (run as root or install sudo)"
	fi
}

# drop_replaced OLD_ID IMAGE removes the image OLD_ID when IMAGE was rebuilt as another one: the
# replaced image would linger untagged. A container still using it keeps it, which is fine.
drop_replaced() {
	if [ -n "$1" ] && [ "$1" != "$(docker image inspect --format '{{.Id}}' "$2")" ]; then
		docker image rm "$1" >/dev/null 2>&1 || true
	fi
}

# run_logged LOG CMD... runs CMD with its output in LOG, and shows the log's tail when it fails.
run_logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "$* failed (full log: $log)"
	fi
}

packages() {
	local need=()
	command -v docker >/dev/null || need+=(docker.io)
	if [ -z "${DOCKER_HOST:-}" ] && ! command -v dockerd >/dev/null; then
		need+=(docker.io)
	fi
	command -v debootstrap >/dev/null || need+=(debootstrap)
	command -v curl >/dev/null || need+=(curl) # the relay test reads through its socket with curl
	if [ ${#need[@]} -eq 0 ]; then
		outcome="present"
		return
	fi
	mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
	local log="$logdir/provision-apt.log"
	export DEBIAN_FRONTEND=noninteractive
	# Fresh machines and slim images often have no package lists; update only then.
	if ! as_root apt-get install -y -q "${need[@]}" >"$log" 2>&1; then
		run_logged "$log" as_root apt-get update -q
		run_logged "$log" as_root apt-get install -y -q "${need[@]}"
	fi
	outcome="installed ${need[*]}"
}

# engine_answers succeeds when the engine answers; its error, if any, is left in $engine_err.
engine_answers() {
	engine_err=$(docker version --format '{{.Server.Version}}' 2>&1 >/dev/null) && return 0
	return 1
}

engine() {
	if engine_answers; then
		outcome="running ($(docker version --format '{{.Server.Version}}'))"
		return
	fi
	case "$engine_err" in
	*"permission denied"*)
		die "the engine is running but $(id -un) may not use it: add the user to the docker group (${engine_err%%$'\n'*})"
		;;
	esac
	case "${DOCKER_HOST:-unix:///var/run/docker.sock}" in
	unix:///var/run/docker.sock | unix:///run/docker.sock) ;;
	*) die "the engine at DOCKER_HOST=$DOCKER_HOST does not answer: $engine_err" ;;
	esac

	local log="$logdir/provision-dockerd.log" pid=""
	if command -v pgrep >/dev/null && pgrep -x dockerd >/dev/null; then
		# Started by someone else and still coming up: wait for it rather than start a second one.
		outcome="waited for running dockerd"
	else
		as_root true # ask for a password, if any, before going to the background
		: >"$log"
		# setsid: the daemon outlives this script and its process group; 9>&-: it must not hold
		# this script's lock.
		(
			trap - ERR
			as_root setsid dockerd
		) >>"$log" 2>&1 </dev/null 9>&- &
		pid=$!
		outcome="started dockerd (log $log)"
	fi
	local deadline=$((SECONDS + DOCKERD_WAIT_SECONDS))
	until engine_answers; do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$log" >&2
			die "dockerd exited before it answered (full log: $log)"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			[ -s "$log" ] && tail -n 20 "$log" >&2
			die "the engine did not answer within ${DOCKERD_WAIT_SECONDS}s: $engine_err${pid:+ (full log: $log)}"
		fi
		sleep 0.2
	done
}

# host_cas DIR writes each certificate of HOST_CA_BUNDLE that Debian's bundle in the root file
# system lacks into DIR as host-ca-N.crt, one per file as update-ca-certificates wants them.
# Networks that intercept TLS (a corporate proxy, a sandbox's egress filter) sign with such an
# authority: without it, `go mod download` and `npm install` in the action image's build fail.
# On an ordinary machine there is none and the base is Debian's alone.
host_cas() {
	[ -r "$HOST_CA_BUNDLE" ] || return 0
	tar -xOf "$rootfs_tar" ./etc/ssl/certs/ca-certificates.crt |
		awk -v dir="$1" '
			/-----BEGIN CERTIFICATE-----/ { cert = ""; in_cert = 1 }
			in_cert { sub(/\r$/, ""); cert = cert $0 "\n" }
			/-----END CERTIFICATE-----/ {
				in_cert = 0
				if (FILENAME == "-") { known[cert] = 1 }
				else if (!(cert in known) && !(cert in seen)) {
					seen[cert] = 1
					printf "%s", cert > (dir "/host-ca-" ++n ".crt")
				}
			}
		' - "$HOST_CA_BUNDLE"
}

base() {
	local want have old ctx
	# The label names what went in: the root file system and the host's CAs.
	want="$(basename "$rootfs_tar") $( [ -r "$HOST_CA_BUNDLE" ] && sha256sum <"$HOST_CA_BUNDLE" | cut -c1-16)"
	have=$(docker image inspect --format '{{index .Config.Labels "sandcastle.test.rootfs"}}' "$BASE_IMAGE" 2>/dev/null || true)
	if [ "$have" = "$want" ]; then
		outcome="present"
		return
	fi
	old=$(docker image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || true)
	if [ -s "$rootfs_tar" ]; then
		outcome="imported from cache"
	else
		command -v debootstrap >/dev/null || die "debootstrap not found"
		work=$(mktemp -d "${TMPDIR:-/tmp}/sandcastle-rootfs.XXXXXX")
		# The root file system belongs to root; a trap removes it even when debootstrap fails.
		trap 'as_root rm -rf "$work"; rm -f "$rootfs_tar.tmp.$$"' EXIT
		# No mirror argument: the default one is the mirror this machine reaches.
		run_logged "$logdir/provision-debootstrap.log" \
			as_root debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$work/rootfs"
		mkdir -p "$tools"
		# Package caches and lists are dropped as a slim image does; /dev is the engine's own.
		as_root tar -C "$work/rootfs" --numeric-owner \
			--exclude='./var/cache/apt/archives/*.deb' --exclude='./var/cache/apt/*.bin' \
			--exclude='./var/lib/apt/lists/*_*' --exclude='./dev/*' \
			-cf - . >"$rootfs_tar.tmp.$$"
		mv "$rootfs_tar.tmp.$$" "$rootfs_tar"
		as_root rm -rf "$work"
		trap - EXIT
		outcome="debootstrapped and imported"
	fi
	docker import --change 'CMD ["/bin/bash"]' \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change "LABEL sandcastle.test.rootfs=\"$want\"" \
		- "$BASE_IMAGE" <"$rootfs_tar" >/dev/null

	ctx=$(mktemp -d "${TMPDIR:-/tmp}/sandcastle-ca.XXXXXX")
	trap 'rm -rf "$ctx"' EXIT
	host_cas "$ctx"
	local n
	n=$(find "$ctx" -name '*.crt' | wc -l)
	if [ "$n" -gt 0 ]; then
		# In /usr/local/share/ca-certificates they survive the update-ca-certificates that apt
		# runs when a build installs or upgrades ca-certificates.
		cat >"$ctx/Dockerfile" <<-'EOF'
			FROM debian:bookworm-slim
			COPY *.crt /usr/local/share/ca-certificates/
			RUN update-ca-certificates
		EOF
		run_logged "$logdir/provision-build.log" docker build --quiet --force-rm \
			--tag "$BASE_IMAGE" "$ctx"
		outcome="$outcome + $n host CA(s)"
	fi
	rm -rf "$ctx"
	trap - EXIT
	drop_replaced "$old" "$BASE_IMAGE"
}

# go_image gives the repository's Dockerfile its build stage's base. The toolchain is this host's
# own, so nothing is downloaded; GOTOOLCHAIN=local and GOPATH=/go match the official image.
go_image() {
	local goroot version base_id want have old
	if ! command -v go >/dev/null; then
		outcome="skipped (no go on this host)"
		return
	fi
	version=$(go env GOVERSION)
	case "$version" in
	"$GO_SERIES" | "$GO_SERIES".*) ;;
	*)
		outcome="skipped (host has $version, not $GO_SERIES)"
		return
		;;
	esac
	goroot=$(go env GOROOT)
	base_id=$(docker image inspect --format '{{.Id}}' "$BASE_IMAGE")
	want="$version $base_id"
	have=$(docker image inspect --format '{{index .Config.Labels "sandcastle.test.go-version"}} {{index .Config.Labels "sandcastle.test.base"}}' "$GO_IMAGE" 2>/dev/null || true)
	if [ "$have" = "$want" ]; then
		outcome="up to date ($version)"
		return
	fi
	old=$(docker image inspect --format '{{.Id}}' "$GO_IMAGE" 2>/dev/null || true)
	# GOROOT itself is the context, so the toolchain is not copied first; the Dockerfile comes
	# from stdin.
	run_logged "$logdir/provision-build.log" docker build --quiet --force-rm \
		--label "sandcastle.test.go-version=$version" \
		--label "sandcastle.test.base=$base_id" \
		--tag "$GO_IMAGE" -f - "$goroot" <<-EOF
			FROM $BASE_IMAGE
			ENV GOLANG_VERSION=${version#go} GOTOOLCHAIN=local GOPATH=/go
			ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
			COPY . /usr/local/go
			RUN mkdir -p /go/src /go/bin && chmod -R 1777 /go
			WORKDIR /go
		EOF
	drop_replaced "$old" "$GO_IMAGE"
	outcome="built ($version)"
}

clis() {
	local bin
	bin=$(SANDCASTLE_TOOLS="$tools" "$here/install-agents.sh" 2>"$logdir/provision-npm.log") ||
		{ tail -n 20 "$logdir/provision-npm.log" >&2; die "installing the agent CLIs failed (full log: $logdir/provision-npm.log)"; }
	# bin/claude is a symlink into the package, whose postinstall put the native executable there.
	claude_real=$(readlink -f "$bin/claude")
	[ -x "$claude_real" ] || die "$claude_real is not an executable"
	outcome="claude $CLAUDE_CODE_VERSION, codex $CODEX_VERSION, pi $PI_VERSION, opencode $OPENCODE_VERSION, copilot $COPILOT_VERSION"
}

# gh_deb puts Debian's gh package in the tools cache and names it in $gh_deb; apt-get update
# only when the download cannot find it.
gh_deb() {
	local dir="$tools/gh-deb" log="$logdir/provision-apt.log"
	mkdir -p "$dir"
	gh_deb=$(find "$dir" -name 'gh_*.deb' | head -n 1)
	[ -n "$gh_deb" ] && return
	if ! (cd "$dir" && apt-get download gh >"$log" 2>&1); then
		run_logged "$log" as_root apt-get update -q
		(cd "$dir" && run_logged "$log" apt-get download gh)
	fi
	gh_deb=$(find "$dir" -name 'gh_*.deb' | head -n 1)
	[ -n "$gh_deb" ] || die "apt-get download gh left no package in $dir"
}

image() {
	local base_id want have old gh_version
	gh_deb
	gh_version=$(basename "$gh_deb" .deb)
	base_id=$(docker image inspect --format '{{.Id}}' "$BASE_IMAGE")
	want="$CLAUDE_CODE_VERSION $AGENT_UID $AGENT_GID $base_id $gh_version"
	have=$(docker image inspect --format '{{index .Config.Labels "sandcastle.test.claude-version"}} {{index .Config.Labels "sandcastle.test.agent-uid"}} {{index .Config.Labels "sandcastle.test.agent-gid"}} {{index .Config.Labels "sandcastle.test.base"}} {{index .Config.Labels "sandcastle.test.gh"}}' "$CLAUDE_IMAGE" 2>/dev/null || true)
	if [ "$have" = "$want" ]; then
		outcome="up to date (claude $CLAUDE_CODE_VERSION)"
		return
	fi
	old=$(docker image inspect --format '{{.Id}}' "$CLAUDE_IMAGE" 2>/dev/null || true)

	ctx=$(mktemp -d "${TMPDIR:-/tmp}/sandcastle-build.XXXXXX")
	trap 'rm -rf "$ctx"' EXIT
	# A hard link spares copying a 400 MB file when the cache and the temp dir share a disk.
	ln "$claude_real" "$ctx/claude" 2>/dev/null || cp "$claude_real" "$ctx/claude"
	cp "$gh_deb" "$ctx/gh.deb"
	# -o: the ids come from the workspace owner and may already be taken in the image (0, 100...).
	cat >"$ctx/Dockerfile" <<-'EOF'
		FROM debian:bookworm-slim
		ARG AGENT_UID=1000
		ARG AGENT_GID=1000
		RUN groupadd --non-unique --gid "$AGENT_GID" agent \
		 && useradd --non-unique --uid "$AGENT_UID" --gid "$AGENT_GID" \
		      --home-dir /home/agent --create-home --shell /bin/bash agent
		COPY claude /usr/local/bin/claude
		COPY gh.deb /tmp/gh.deb
		RUN dpkg -i /tmp/gh.deb && rm /tmp/gh.deb
		WORKDIR /home/agent
	EOF
	run_logged "$logdir/provision-build.log" docker build --quiet --force-rm \
		--build-arg "AGENT_UID=$AGENT_UID" --build-arg "AGENT_GID=$AGENT_GID" \
		--label "sandcastle.test.claude-version=$CLAUDE_CODE_VERSION" \
		--label "sandcastle.test.agent-uid=$AGENT_UID" \
		--label "sandcastle.test.agent-gid=$AGENT_GID" \
		--label "sandcastle.test.base=$base_id" \
		--label "sandcastle.test.gh=$gh_version" \
		--tag "$CLAUDE_IMAGE" "$ctx"
	rm -rf "$ctx"
	trap - EXIT
	drop_replaced "$old" "$CLAUDE_IMAGE"
	outcome="built (claude $CLAUDE_CODE_VERSION, $gh_version, agent $AGENT_UID:$AGENT_GID)"
}

# agents_image adds the other agent CLIs to the claude image. codex is a static binary, opencode
# and copilot need only the glibc and libstdc++ the base has; pi is JavaScript and gets this
# host's node (pi wants 20.6 or later).
agents_image() {
	local claude_id node want have old
	claude_id=$(docker image inspect --format '{{.Id}}' "$CLAUDE_IMAGE")
	node=$(command -v node) || die "node not found: pi needs it"
	want="$CODEX_VERSION $PI_VERSION $OPENCODE_VERSION $COPILOT_VERSION $("$node" --version) $claude_id"
	have=$(docker image inspect --format '{{index .Config.Labels "sandcastle.test.agents"}}' "$AGENTS_IMAGE" 2>/dev/null || true)
	if [ "$have" = "$want" ]; then
		outcome="up to date"
		return
	fi
	old=$(docker image inspect --format '{{.Id}}' "$AGENTS_IMAGE" 2>/dev/null || true)
	ctx=$(mktemp -d "${TMPDIR:-/tmp}/sandcastle-build.XXXXXX")
	trap 'rm -rf "$ctx"' EXIT
	local nm="$tools/node_modules"
	mkdir -p "$ctx/bin"
	for f in "$nm/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex" \
		"$nm/opencode-linux-x64/bin/opencode" "$nm/@github/copilot-linux-x64/copilot" "$node"; do
		[ -x "$f" ] || die "$f is not an executable"
		ln "$f" "$ctx/bin/$(basename "$f")" 2>/dev/null || cp "$f" "$ctx/bin/"
	done
	cp -a "$tools/pi/node_modules" "$ctx/pi"
	cat >"$ctx/Dockerfile" <<-EOF
		FROM $CLAUDE_IMAGE
		COPY bin/ /usr/local/bin/
		COPY pi/ /opt/pi/node_modules/
		RUN ln -s /opt/pi/node_modules/.bin/pi /usr/local/bin/pi
	EOF
	run_logged "$logdir/provision-build.log" docker build --quiet --force-rm \
		--label "sandcastle.test.agents=$want" --tag "$AGENTS_IMAGE" "$ctx"
	rm -rf "$ctx"
	trap - EXIT
	drop_replaced "$old" "$AGENTS_IMAGE"
	outcome="built (codex, pi, opencode, copilot)"
}

main() {
	local start=$EPOCHREALTIME
	current=setup
	trap 'printf "provision: step %s failed: %s\n" "$current" "$BASH_COMMAND" >&2' ERR
	mkdir -p "$tools"
	# Test packages may run this at the same time; one provisions, the others wait and then check.
	if command -v flock >/dev/null; then
		exec 9>"$tools/provision.lock"
		flock 9
	fi

	step packages packages
	step engine engine
	step base base
	step go go_image
	step clis clis
	step image image
	step agents agents_image
	printf 'provision: %-8s %-44s %6.1fs\n' total "$BASE_IMAGE + $GO_IMAGE + $CLAUDE_IMAGE + $AGENTS_IMAGE" "$(elapsed "$start")"
}

main "$@"
