#!/usr/bin/env bash
# Runs every test tier that this machine can provide. Agent CLIs are installed from npm, pinned,
# into a cache outside the repository and put on PATH. With CI=true a tier whose tool is missing
# fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

export SANDCASTLE_TOOLS="${SANDCASTLE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandcastle-test-tools}"
# The pinned agent CLIs of scripts/agent-clis.env, from npm.
PATH="$(scripts/install-agents.sh):$PATH"
export PATH
for cli in claude codex pi opencode copilot; do
	printf '%s %s\n' "$cli" "$("$cli" --version 2>&1 | head -n 1)"
done
# actionlint, pinned, from the Go module proxy: the workflows README.md, docs/ and init show must pass it.
PATH="$(scripts/install-actionlint.sh):$PATH"
printf 'actionlint %s\n' "$(actionlint -version | head -n 1)"
# act, pinned, from the Go module proxy: the act tier runs the workflows README.md, docs/ and init show.
PATH="$(scripts/install-act.sh):$PATH"
printf '%s\n' "$(act --version | head -n 1)"
# buildx, pinned, from the Go module proxy unless docker has the plugin: the release's build steps
# (scripts/release-images.sh) run in the Docker tier.
if ! docker buildx version >/dev/null 2>&1; then
	PATH="$(scripts/install-buildx.sh):$PATH"
fi

# A Docker engine and the test images (built offline from Debian packages; nothing is pulled).
scripts/provision-docker.sh

test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
# action.yml and docs/inputs.md, docs/outputs.md are generated from internal/inputs and
# internal/report: a hand edit or a forgotten go generate shows as a diff.
go generate ./...
git diff --exit-code -- action.yml docs/inputs.md docs/outputs.md || { echo "go generate ./... changed the files above; commit them"; exit 1; }
go test -count=1 -timeout 30m ./... "$@"

# Fuzz tests behind a security promise get a short run beyond their seeds: bad env-file lines
# that must not show their secrets, agent and stranger text in a pull request body that must close
# no issue and mention nobody, prompt values in !`command` blocks through real sh and bash, any
# command around a placeholder that the template rule accepts, through real dash and bash, the
# template split, a branch name made from a stranger's issue title, and any request the sandbox
# sends the GitHub relay, which must reach GitHub only as a read of the repository.
#
# Each budget is a count of executions, about ten seconds' worth on two cores. A duration
# (-fuzztime 10s) races Go's fuzz coordinator at the deadline and fails with "context deadline
# exceeded" and no failing input (go.dev/issue/75804, not fixed in Go 1.26); a count has no
# deadline. FUZZTIME, when set, replaces every budget (a count like 50000x, or a duration).
fuzz() { # package target executions
	go test -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-$3}" "$1"
}
fuzz ./internal/inputs FuzzBadLinesHideSecrets 30000x
fuzz ./internal/gitref FuzzSlug 500000x
fuzz ./internal/event FuzzInert 100000x
fuzz ./internal/prompt FuzzCommandValues 5000x
fuzz ./internal/prompt FuzzCommandTemplates 25000x
fuzz ./internal/prompt FuzzTemplate 300000x
fuzz ./internal/relay FuzzRelayForwards 150000x
