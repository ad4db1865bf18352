#!/usr/bin/env bash
# Measures the coverage of internal/... as a plain `go test` reaches it: no agent CLI on PATH and
# CI unset, so the tiers that need npm skip (a Docker engine may be running). Prints each
# package's coverage, by its own tests, and the module's, and fails when a package is under
# MIN_PACKAGE (80%) or the module under MIN_TOTAL (90%).
set -euo pipefail
cd "$(dirname "$0")/.."
MIN_PACKAGE="${MIN_PACKAGE:-80}"
MIN_TOTAL="${MIN_TOTAL:-90}"

# PATH without the directories that hold an agent CLI.
path=""
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
	for cli in claude codex pi opencode copilot agent; do
		[ -x "$dir/$cli" ] && continue 2
	done
	path="${path:+$path:}$dir"
done

profile="${COVERPROFILE:-$(mktemp)}"
[ -n "${COVERPROFILE:-}" ] || trap 'rm -f "$profile"' EXIT
env -u CI PATH="$path" go test -count=1 -coverprofile="$profile" ./internal/... "$@" |
	awk -v min="$MIN_PACKAGE" '
		/coverage:/ {
			pct = $0; sub(/.*coverage: /, "", pct); sub(/%.*/, "", pct)
			printf "%-70s %6.1f%%\n", $2, pct
			if (pct + 0 < min) low = low " " $2
		}
		/^(FAIL|---)/ { print; failed = 1 }
		/^[ \t]+(--- FAIL|[^ ]+_test\.go:[0-9]+:)/ { print } # what a failing test said
		END { if (low != "") { print "under " min "%:" low; exit 1 } if (failed) exit 1 }'
total="$(go tool cover -func="$profile" | awk '/^total:/ { sub(/%/, "", $3); print $3 }')"
printf '%-70s %6.1f%%\n' "module" "$total"
awk -v t="$total" -v min="$MIN_TOTAL" 'BEGIN { if (t + 0 < min) { print "module under " min "%"; exit 1 } }'
