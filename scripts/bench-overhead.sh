#!/usr/bin/env bash
# Prints the pipeline's own cost per iteration: Main driving a trivial agent for five iterations
# (workspace, prompt, exec, stream parsing, commit collection, outputs), minus the time the agent
# process itself takes.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench BenchmarkPipelineOverhead -benchtime "${BENCHTIME:-20x}" ./internal/app/ |
	awk '/BenchmarkPipelineOverhead/ {
		for (i = 1; i <= NF; i++) m[$(i+1)] = $i
		printf "per iteration: %s ms in all, %s ms in the agent process, %s ms pipeline overhead\n",
			m["ms/iteration"], m["ms/agent-process"], m["ms/overhead-per-iteration"]
	}'
