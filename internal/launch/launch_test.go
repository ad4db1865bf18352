package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/relay"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

func hostRepo(dir string) git.Repo { return git.New(dir, nil).WithConfig("safe.directory=*") }

// TestLaunch_relay: Launch starts the relay beside the run logs, binds its directory into the
// container with the variables gh and curl need, reads nothing until asked, and Close stops it,
// saying what it forwarded; the guard's custody ends cleanly after.
func TestLaunch_relay(t *testing.T) {
	t.Parallel()
	actkit.RequireDocker(t)
	actkit.RequireImage(t, actkit.BaseImage)
	dir := repo(t)
	var console strings.Builder
	log := report.NewConsole(&console, nil, false).NewLog(nil, nil)
	gh := &GitHub{Owner: "o", Name: "r", APIURL: "http://127.0.0.1:1", ServerURL: "https://ghe.example", Token: "t0ken"}
	c, err := dockerOf(inputs.SyncMount).Launch(t.Context(), dir, dir, hostRepo(dir), map[string]string{"SANDCASTLE_TEST": "passed"}, gh, log)
	if err != nil {
		t.Fatalf("Launch: %v\n%s", err, console.String())
	}
	r := sh(t, c, `echo "$GH_HOST|$GH_TOKEN|$SANDCASTLE_TEST"; test -S `+relay.Target+`/api.sock && echo socket`)
	if got := strings.TrimSpace(r.Stdout); got != "ghe.example|"+relay.Dummy+"|passed\nsocket" {
		t.Errorf("inside: %q (stderr %q)", got, r.Stderr)
	}
	if c.Read(42) {
		t.Error("issue 42 counts as read before any request")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Error(err)
	}
	if _, err := c.Guard.Close(ctx); err != nil {
		t.Error(err)
	}
	if err := c.GiveBack(); err != nil {
		t.Error(err)
	}
	if !strings.Contains(console.String(), "GitHub relay: 0 request(s) forwarded, 0 refused") {
		t.Errorf("the relay's figures are not logged:\n%s", console.String())
	}
}

// TestLaunch_fails_before_the_container: a git directory that cannot be taken into custody, or
// a relay that cannot start, fails Launch with the custody ended, so that it can be taken again.
func TestLaunch_fails_before_the_container(t *testing.T) {
	t.Parallel()
	log := report.NewConsole(&strings.Builder{}, nil, false).NewLog(nil, nil)
	notRepo := t.TempDir()
	if _, err := dockerOf(inputs.SyncMount).Launch(t.Context(), notRepo, notRepo, hostRepo(notRepo), nil, nil, log); err == nil {
		t.Error("Launch outside a repository started")
	}
	dir := repo(t)
	if err := os.WriteFile(filepath.Join(dir, ".sandcastle"), []byte("a file where the logs' directory goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	gh := &GitHub{Owner: "o", Name: "r", Token: "t0ken"}
	if _, err := dockerOf(inputs.SyncMount).Launch(t.Context(), dir, dir, hostRepo(dir), nil, gh, log); err == nil || !strings.Contains(err.Error(), "relay") {
		t.Errorf("Launch with no room for the relay = %v", err)
	}
	g, err := gitguard.Take(t.Context(), hostRepo(dir))
	if err != nil {
		t.Fatalf("the custody was not ended: %v", err)
	}
	if _, err := g.Close(t.Context()); err != nil {
		t.Error(err)
	}
}
