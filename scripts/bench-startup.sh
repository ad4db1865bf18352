#!/usr/bin/env bash
# Prints the action image's size (to pull, compressed as a registry stores it, and on disk) and,
# on a warm daemon, the time from starting its container as a runner does to the binary's first
# line, to the loop's first iteration and to the agent's first line: the image's real claude,
# with sandbox: none, answering the scripted model server of internal/testkit/models. The image is
# built from this checkout by the release's own steps (scripts/release-images.sh action). Needs
# scripts/provision-docker.sh and buildx (scripts/install-buildx.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! docker buildx version >/dev/null 2>&1; then
	PATH="$(scripts/install-buildx.sh):$PATH"
fi
go test -run '^$' -bench BenchmarkActionStartup -benchtime "${BENCHTIME:-5x}" ./internal/release/ |
	awk '/^BenchmarkActionStartup/ {
		for (i = 1; i <= NF; i++) m[$(i+1)] = $i
		printf "action image: %s MB to pull, %s MB on disk\n", m["MB-pull"], m["MB-disk"]
		printf "from container start: %s ms to its first line, %s ms to the first iteration, %s ms to the agent'"'"'s first line\n",
			m["ms/first-line"], m["ms/first-iteration"], m["ms/agent-first-line"]
	}'
