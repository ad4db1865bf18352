package relay

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

const token = "ghs_RelayToken0123456789abcdef"

// listening is a relay for octo/repo on the fake, on its socket, and a client that dials it
// as the sandbox's gh does: https URLs of the sandbox's host, plain HTTP on the socket.
func listening(t *testing.T, o Options) (*Relay, *githubfake.GitHub, *http.Client) {
	t.Helper()
	gh := githubfake.NewGitHub(t, token, "octo/repo")
	o.Policy, o.APIURL, o.GraphQLURL, o.Token = policy, gh.APIURL, gh.GraphQLURL, token
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "relay")
	if err := r.Listen(dir, -1, -1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	sock := filepath.Join(dir, socketName)
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}
	return r, gh, &http.Client{Transport: &http.Transport{DialContext: dial, DialTLSContext: dial}}
}

func do(t *testing.T, c *http.Client, method, url, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+Dummy)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestRelayForwardsReadsWithTheToken: the sandbox's dummy token is replaced by the run's, which
// the fake requires, and GitHub's answer comes back as it was.
func TestRelayForwardsReadsWithTheToken(t *testing.T) {
	r, gh, c := listening(t, Options{})
	gh.AddIssue(githubfake.Issue{Number: 7, Title: "Seven"})
	status, body, _ := do(t, c, "GET", "https://ghe.example/api/v3/repos/octo/repo/issues/7", "")
	if status != 200 || !strings.Contains(body, `"title":"Seven"`) {
		t.Fatalf("GET through the relay = %d %s; want issue 7", status, body)
	}
	status, body, _ = do(t, c, "POST", "https://ghe.example/api/graphql", `{"query":"{ repository(owner: \"octo\", name: \"repo\") { issue(number: 7) { title } } }"}`)
	if status != 200 || !strings.Contains(body, `"Seven"`) {
		t.Fatalf("GraphQL through the relay = %d %s; want issue 7", status, body)
	}
	if r.Forwarded() != 2 || len(r.Refused()) != 0 {
		t.Errorf("forwarded %d, refused %q; want 2 and none", r.Forwarded(), r.Refused())
	}
	if strings.Contains(body, token) {
		t.Error("the answer holds the token")
	}
}

// TestRelayRefusesWritesBeforeGitHub: what the policy refuses never reaches GitHub; the sandbox
// gets 403 with the reason, and the relay logs it.
func TestRelayRefusesWritesBeforeGitHub(t *testing.T) {
	var logged []string
	r, gh, c := listening(t, Options{Refused: func(s string) { logged = append(logged, s) }})
	gh.AddIssue(githubfake.Issue{Number: 7, Title: "Seven"})
	for _, req := range []struct{ method, url, body string }{
		{"PATCH", "https://ghe.example/api/v3/repos/octo/repo/issues/7", `{"state":"closed"}`},
		{"POST", "https://ghe.example/api/v3/repos/octo/repo/issues/7/comments", `{"body":"x"}`},
		{"POST", "https://ghe.example/api/graphql", `{"query":"mutation { closeIssue(input: {issueId: \"I_7\"}) { clientMutationId } }"}`},
		{"GET", "https://ghe.example/api/v3/repos/octo/other/issues", ""},
	} {
		status, body, _ := do(t, c, req.method, req.url, req.body)
		if status != http.StatusForbidden || !strings.Contains(body, "refused") {
			t.Errorf("%s %s = %d %s; want 403 refused", req.method, req.url, status, body)
		}
	}
	if got := gh.Requests(); len(got) != 0 {
		t.Errorf("requests reached GitHub: %q", got)
	}
	if len(logged) != 4 || len(r.Refused()) != 4 {
		t.Errorf("logged %q; want the 4 refusals", logged)
	}
	if gh.Issue(7).State != "open" {
		t.Error("issue 7 was closed")
	}
}

// TestRelayBudget: a run forwards at most MaxRequests, and none once GitHub says that no more
// than Reserve requests remain.
func TestRelayBudget(t *testing.T) {
	r, gh, c := listening(t, Options{MaxRequests: 2})
	url := "https://ghe.example/api/v3/repos/octo/repo/issues"
	for i, want := range []int{200, 200, 429} {
		if status, body, _ := do(t, c, "GET", url, ""); status != want {
			t.Errorf("request %d = %d %s; want %d", i+1, status, body, want)
		}
	}
	if got := gh.Calls("GET", "/repos/{owner}/{repo}/issues"); got != 2 {
		t.Errorf("GitHub got %d requests; want 2", got)
	}
	if !strings.Contains(strings.Join(r.Refused(), "\n"), "budget of 2 requests") {
		t.Errorf("refusals %q do not name the budget", r.Refused())
	}

	limited := &Relay{o: Options{Reserve: 100}, remain: -1}
	limited.note("101")
	if why := limited.spend(); why != "" {
		t.Errorf("with 101 left and 100 kept: %s", why)
	}
	limited.note("100")
	if why := limited.spend(); !strings.Contains(why, "100 requests left") {
		t.Errorf("with 100 left and 100 kept: %q; want a refusal", why)
	}
}

// TestRelayLinks: pagination links lead back through the relay, to the repository by name.
func TestRelayLinks(t *testing.T) {
	r := &Relay{o: Options{APIURL: "https://api.github.com", Policy: policy}}
	req, _ := http.NewRequest("GET", "https://github.com/repos/octo/repo/issues", nil)
	got := r.links([]string{`<https://api.github.com/repositories/123/issues?page=2>; rel="next", <https://api.github.com/repositories/123/issues?page=5>; rel="last"`}, req)
	want := `<https://github.com/repos/octo/repo/issues?page=2>; rel="next", <https://github.com/repos/octo/repo/issues?page=5>; rel="last"`
	if got[0] != want {
		t.Errorf("links = %s\nwant    %s", got[0], want)
	}
}

// TestRelayNodeOfAKnownIssue: node(id:) passes for an issue an earlier answer showed, as gh
// issue view --json comments asks, and for no other id.
func TestRelayNodeOfAKnownIssue(t *testing.T) {
	_, gh, c := listening(t, Options{})
	gh.AddIssue(githubfake.Issue{Number: 7, Title: "Seven"})
	node := func(id string) int {
		status, _, _ := do(t, c, "POST", "https://ghe.example/api/graphql", `{"query":"query($id: ID!) { node(id: $id) { id } }","variables":{"id":"`+id+`"}}`)
		return status
	}
	if got := node("I_7"); got != http.StatusForbidden {
		t.Fatalf("node of an issue never shown = %d; want 403", got)
	}
	do(t, c, "POST", "https://ghe.example/api/graphql", `{"query":"{ repository(owner: \"octo\", name: \"repo\") { issue(number: 7) { id } } }"}`)
	if got := node("I_7"); got != 200 {
		t.Errorf("node of an issue shown = %d; want 200", got)
	}
	if got := node("U_someone"); got != http.StatusForbidden {
		t.Errorf("node of a user = %d; want 403", got)
	}
	for id, want := range map[string]bool{"I_kwDOA": true, "PR_kwDOB": true, "MDU6SXNzdWUx": true, "MDExOlB1bGxSZXF1ZXN0MQ==": true, "MDQ6VXNlcjE=": false, "U_x": false} {
		if issueID(id) != want {
			t.Errorf("issueID(%q) = %v", id, !want)
		}
	}
}

// TestRelayDirectory: the directory is the sandbox user's alone, the socket anyone's who reaches
// it, gh's configuration dials the socket where the sandbox sees it, and Close removes it all.
func TestRelayDirectory(t *testing.T) {
	r, _, _ := listening(t, Options{})
	fi, err := os.Stat(r.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v, %v; want 0700", fi.Mode(), err)
	}
	config, _ := os.ReadFile(filepath.Join(r.dir, configName))
	if !strings.Contains(string(config), "http_unix_socket: "+Target+"/"+socketName) {
		t.Errorf("gh's config %q does not dial the socket at %s", config, Target)
	}
	env := Env("github.com", "octo", "repo")
	for k, want := range map[string]string{"GH_HOST": "github.com", "GH_TOKEN": Dummy, "GH_REPO": "github.com/octo/repo", "GH_CONFIG_DIR": Target} {
		if env[k] != want {
			t.Errorf("%s = %q; want %q", k, env[k], want)
		}
	}
	// Plain HTTP, as the socket speaks: curl --unix-socket takes TLS from an https URL and fails.
	if api := Env("ghe.example", "o", "r")["SANDCASTLE_GITHUB_API"]; api != "http://ghe.example/api/v3" {
		t.Errorf("SANDCASTLE_GITHUB_API for an enterprise host = %q", api)
	}
	if api := env["SANDCASTLE_GITHUB_API"]; api != "http://api.github.com" {
		t.Errorf("SANDCASTLE_GITHUB_API for github.com = %q", api)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Errorf("the directory is still there after Close: %v", err)
	}
}

// TestRelayDeepDirectory: a directory too deep for a Unix socket's path (a checkout deep in a
// runner's work directory) still gets the socket, reached through the sandbox's short mount.
func TestRelayDeepDirectory(t *testing.T) {
	gh := githubfake.NewGitHub(t, token, "octo/repo")
	r, err := New(Options{Policy: policy, APIURL: gh.APIURL, GraphQLURL: gh.GraphQLURL, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60), "relay")
	if err := os.MkdirAll(filepath.Dir(deep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Listen(deep, -1, -1); err != nil {
		t.Fatalf("Listen in a directory %d bytes deep: %v", len(deep), err)
	}
	t.Cleanup(func() { r.Close() })
	mount := filepath.Join(t.TempDir(), "m") // what the sandbox's mount point does
	if err := os.Symlink(deep, mount); err != nil {
		t.Fatal(err)
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", filepath.Join(mount, socketName))
	}
	c := &http.Client{Transport: &http.Transport{DialContext: dial}}
	if code, body, _ := do(t, c, http.MethodGet, "http://api.github.com/repos/octo/repo/issues", ""); code != http.StatusOK {
		t.Errorf("GET through the deep socket = %d %s", code, body)
	}
}

// TestRelayRead: the relay says which issues and pull requests the sandbox was shown, through
// REST or GraphQL, and no other: a triage acts on those alone.
func TestRelayRead(t *testing.T) {
	r, gh, c := listening(t, Options{})
	for n := 1; n <= 9; n++ {
		gh.AddIssue(githubfake.Issue{Number: n, Title: "Issue " + strconv.Itoa(n)})
	}
	for _, req := range []struct{ method, url, body string }{
		{"GET", "https://github.com/repos/octo/repo/issues/2", ""},
		{"GET", "https://github.com/repos/octo/repo/issues/3/comments", ""},
		{"POST", "https://github.com/graphql", `{"query":"{ repository(owner: \"octo\", name: \"repo\") { issue(number: 4) { number title } } }"}`},
		{"POST", "https://github.com/graphql", `{"query":"{ repository(owner: \"octo\", name: \"repo\") { issues(first: 2) { nodes { number } } } }"}`},
		{"GET", "https://github.com/repos/octo/repo/issues/5/comments?per_page=1&per_page=2", ""}, // refused
	} {
		do(t, c, req.method, req.url, req.body)
	}
	// The fake lists the newest first.
	for n, want := range map[int]bool{1: false, 2: true, 3: true, 4: true, 5: false, 6: false, 8: true, 9: true} {
		if r.Read(n) != want {
			t.Errorf("Read(%d) = %v; want %v", n, !want, want)
		}
	}
}

// TestRelayReadFromAnswers: REST answers name their issues by url, GraphQL ones by where they
// stand or their id; a milestone's number, another repository's issue, a comment's id are none.
func TestRelayReadFromAnswers(t *testing.T) {
	r := &Relay{o: Options{Policy: policy}}
	r.learn(Checked{Kind: REST, Path: "/repos/octo/repo/issues"}, []byte(`[{"number": 11, "url": "https://api.github.com/repos/octo/repo/issues/11", "milestone": {"number": 12, "url": "https://api.github.com/repos/octo/repo/milestones/12"}},
		{"number": 13, "url": "https://api.github.com/repos/other/repo/issues/13"}, {"id": 14, "url": "https://api.github.com/repos/octo/repo/issues/comments/14", "issue_url": "https://api.github.com/repos/octo/repo/issues/15"}]`))
	r.learn(Checked{Kind: GraphQL, Path: "/graphql"}, []byte(`{"data": {"repository": {"milestone": {"number": 21}, "pullRequests": {"edges": [{"node": {"number": 22}}]},
		"x": {"number": 23, "id": "I_kwDO23"}, "y": {"number": 24, "url": "https://github.com/octo/repo/pull/24"}, "issue": {"number": 25}}}}`))
	for n, want := range map[int]bool{11: true, 12: false, 13: false, 14: false, 15: true, 21: false, 22: true, 23: true, 24: true, 25: true} {
		if r.Read(n) != want {
			t.Errorf("Read(%d) = %v; want %v", n, !want, want)
		}
	}
}

// TestRelayEnvWithCurl: docs/security.md's curl --unix-socket "$SANDCASTLE_GITHUB_SOCKET"
// "$SANDCASTLE_GITHUB_API/..." reads through the relay, with the real curl: the URL's scheme is
// the socket's, plain HTTP (an https one fails the TLS handshake, curl's exit 35).
func TestRelayEnvWithCurl(t *testing.T) {
	curl := testkit.RequireBinary(t, "curl") // under CI=true a missing curl fails, never skips
	if curl == "" {
		return
	}
	r, gh, _ := listening(t, Options{})
	gh.AddIssue(githubfake.Issue{Number: 7, Title: "Seven"})
	for _, host := range []string{"github.com", "ghe.example"} {
		api := Env(host, "octo", "repo")["SANDCASTLE_GITHUB_API"]
		out, err := exec.CommandContext(t.Context(), curl, "-sS", "--unix-socket", filepath.Join(r.dir, socketName), api+"/repos/octo/repo/issues/7").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"title":"Seven"`) {
			t.Errorf("curl %s/repos/octo/repo/issues/7: %v\n%s", api, err, out)
		}
	}
}
