#!/usr/bin/env bash
# Prints what the Docker sandbox costs: for one and for five iterations of a trivial agent in a
# container, the time from the start of the run to the agent's start, from the agent's exit to the
# outputs (container removed), and the time per iteration. Needs scripts/provision-docker.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench BenchmarkDockerRun -benchtime "${BENCHTIME:-5x}" ./internal/app/ |
	awk '/BenchmarkDockerRun\// {
		for (i = 1; i <= NF; i++) m[$(i+1)] = $i
		split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
		printf "%s: %s ms from start to the agent, %s ms from its exit to the outputs, %s ms per iteration\n",
			name[2], m["ms/start-to-agent"], m["ms/agent-exit-to-outputs"], m["ms/iteration"]
	}'
