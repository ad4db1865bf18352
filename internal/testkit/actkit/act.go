package actkit

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// Version is the nektos/act release scripts/install-act.sh installs. It stays a pair that
// TestActVersionIsThePin keeps equal: the shell script cannot read a Go constant.
const Version = "0.2.89"

// Act runs workflows under nektos/act, the engine of Gitea's and Forgejo's runners too, against
// the local Docker engine: each job in a container of Platform on the host's network, each
// Docker action in a container of its own in that job's network, the workspace a volume that
// belongs to root. Nothing is pulled (--pull=false): every image must be here already. act
// names a job's container and volume after the workflow's name and the job's, so workflows run
// at the same time need names of their own.
type Act struct {
	t   testing.TB
	bin string
	// Dir is the local repository act runs for (-C): github.sha and github.ref come from its
	// HEAD. Its files never reach the job: a checkout step fetches them (see CheckoutStandIn).
	Dir string
	// Platform is the image of the jobs that run on ubuntu-latest; BaseImage by default (Debian
	// with bash and git).
	Platform string
	// Actions maps an action as workflows name it (owner/name@ref) to a local directory act
	// takes it from instead of GitHub (--local-repository).
	Actions map[string]string
	// Env is given to every job and step (--env). act's own GITHUB_* variables that it lets be
	// set (GITHUB_SERVER_URL, GITHUB_API_URL, GITHUB_GRAPHQL_URL, GITHUB_REPOSITORY) take these
	// values.
	Env map[string]string
	// Secrets are the workflow's secrets; GITHUB_TOKEN is github.token too. act reads their
	// values from its own environment, so they are never on its command line.
	Secrets map[string]string
	// ContainerOptions are options of docker run for the job containers and the Docker actions'
	// (--container-options), like "--cgroupns private".
	ContainerOptions string
}

// New returns an Act for the repository dir. It skips the test when act or the Docker engine
// is missing, and fails it instead under CI=true.
func New(t testing.TB, dir string) *Act {
	t.Helper()
	bin := testkit.RequireBinary(t, "act")
	if bin == "" {
		return nil
	}
	// The tests know this release's ways: how it names steps' lines, runs Docker actions, takes
	// local actions.
	if out, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != "act version "+Version {
		testkit.SkipOrFail(t, fmt.Sprintf("%s --version says %q (%v), not act version %s", bin, strings.TrimSpace(string(out)), err, Version), testkit.InstallHint("act"))
		return nil
	}
	RequireDocker(t)
	RequireImage(t, BaseImage)
	return &Act{t: t, bin: bin, Dir: dir, Platform: BaseImage, Actions: map[string]string{}, Env: map[string]string{}, Secrets: map[string]string{}}
}

// Result is one run of a workflow under act.
type Result struct {
	// Log is what act printed: its own lines and, prefixed with "| ", each step's.
	Log      string
	Duration time.Duration
	// Err is why act failed: a job failed, or act could not run it.
	Err error
}

// stepLine is a line a step printed, as act shows it: "[workflow/job]   | text".
var stepLine = regexp.MustCompile(`^\[[^\]]*\] +\| (.*)$`)

// Printed returns the lines the steps printed, in order.
func (r Result) Printed() []string {
	var lines []string
	for line := range strings.Lines(r.Log) {
		if m := stepLine.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			lines = append(lines, m[1])
		}
	}
	return lines
}

// Run runs the workflow file for the event (issues, schedule, ...) with its payload, as JSON,
// and waits for it.
func (a *Act) Run(ctx context.Context, workflow, event string, payload []byte) Result {
	a.t.Helper()
	scratch := a.t.TempDir()
	eventPath := filepath.Join(scratch, "event.json")
	if err := os.WriteFile(eventPath, payload, 0o644); err != nil {
		a.t.Fatal(err)
	}
	args := []string{event, "-W", workflow, "-e", eventPath, "-C", a.Dir,
		"-P", "ubuntu-latest=" + a.Platform, "--pull=false",
		// actions/checkout is run (by a stand-in), not replaced by a copy of Dir.
		"--no-skip-checkout",
		"--no-cache-server", "--action-cache-path", filepath.Join(scratch, "actions"),
		// A failed job's containers and volumes go too, not only a passing one's.
		"--rm",
		// act's defaults read .env, .secrets, .vars and .input from the working directory.
		"--env-file", filepath.Join(scratch, "none"), "--secret-file", filepath.Join(scratch, "none"),
		"--var-file", filepath.Join(scratch, "none"), "--input-file", filepath.Join(scratch, "none"),
	}
	if a.ContainerOptions != "" {
		args = append(args, "--container-options", a.ContainerOptions)
	}
	for _, ref := range slices.Sorted(maps.Keys(a.Actions)) {
		args = append(args, "--local-repository", ref+"="+a.Actions[ref])
	}
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		args = append(args, "--env", k+"="+a.Env[k])
	}
	// Of act's own environment, only what it needs: no developer's settings, no ~/.actrc.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		env = append(env, "DOCKER_HOST="+h)
	}
	for _, k := range slices.Sorted(maps.Keys(a.Secrets)) {
		args = append(args, "-s", k)
		env = append(env, k+"="+a.Secrets[k])
	}
	cmd := exec.CommandContext(ctx, a.bin, args...)
	cmd.Dir, cmd.Env = scratch, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	r := Result{Log: out.String(), Duration: time.Since(start)}
	if err != nil {
		r.Err = fmt.Errorf("act %s %s: %w", event, filepath.Base(workflow), err)
	}
	return r
}

// CheckoutStandIn writes an action that stands in for actions/checkout, which act would fetch
// from GitHub, and returns its directory, for Act.Actions. It is the one part of an act run
// that is not the real thing. Like actions/checkout for a run on a branch, it fetches the branch
// of github.ref (fetch-depth commits of it; 0 fetches every branch with its history) from
// GITHUB_SERVER_URL/<repository>, with the token as the Basic credential GitHub takes, checks it
// out into the workspace (or path in it) and, with persist-credentials (the default), keeps the
// credential in .git/config as actions/checkout does. For a pull request's github.ref
// (refs/pull/<n>/merge) it checks out that commit, detached.
func CheckoutStandIn(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), []byte(checkoutAction), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const checkoutAction = `name: checkout (stand-in)
description: Stands in for actions/checkout in Sandcastle's act tests, which cannot fetch it.
inputs:
  repository:
    description: owner/name
    default: ${{ github.repository }}
  ref:
    description: the branch; empty means github.ref's
    default: ""
  token:
    description: the token git fetches with
    default: ${{ github.token }}
  path:
    description: where in the workspace
    default: ""
  fetch-depth:
    description: commits to fetch; 0 for all
    default: "1"
  persist-credentials:
    description: keep the token in .git/config
    default: "true"
runs:
  using: composite
  steps:
    - shell: bash
      env:
        REPOSITORY: ${{ inputs.repository }}
        REF: ${{ inputs.ref }}
        TOKEN: ${{ inputs.token }}
        DEST: ${{ inputs.path }}
        DEPTH: ${{ inputs.fetch-depth }}
        PERSIST: ${{ inputs.persist-credentials }}
      run: |
        set -euo pipefail
        ref=${REF:-$GITHUB_REF}
        case $ref in
        refs/heads/*) branch=${ref#refs/heads/} local=refs/remotes/origin/${ref#refs/heads/} ;;
        refs/pull/*) branch="" local=refs/remotes/pull/${ref#refs/pull/} ;;
        *) branch=$ref local=refs/remotes/origin/$ref ref=refs/heads/$ref ;;
        esac
        dir=$GITHUB_WORKSPACE${DEST:+/$DEST}
        header="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$TOKEN" | base64 -w0)"
        mkdir -p "$dir"
        cd "$dir"
        git init -q
        git remote add origin "$GITHUB_SERVER_URL/$REPOSITORY"
        depth=--depth=$DEPTH
        refspecs=("+$ref:$local")
        if [ "$DEPTH" = 0 ]; then
          depth=
          refspecs+=('+refs/heads/*:refs/remotes/origin/*')
        fi
        git -c http.extraheader="$header" fetch -q --no-tags $depth origin "${refspecs[@]}"
        if [ -n "$branch" ]; then
          git checkout -q --force -B "$branch" "$local"
        else
          git checkout -q --force --detach "$local"
        fi
        if [ "$PERSIST" = true ]; then
          git config "http.$GITHUB_SERVER_URL/.extraheader" "$header"
        fi
        printf 'checked out %s at %s\n' "$ref" "$(git rev-parse HEAD)"
`
