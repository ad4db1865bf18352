package relay

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// got is one request as the upstream received it.
type got struct {
	Method, URI, ContentType string
	Body                     []byte
}

// upstream is GitHub's stand-in for the forwarding tests: it records every request exactly as
// it arrives (the raw URI and body, which GitHub reads by exact key) and answers {}.
type upstream struct {
	mu  sync.Mutex
	got []got
	srv *httptest.Server
}

func newUpstream(t testing.TB) *upstream {
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.got = append(u.got, got{Method: r.Method, URI: r.RequestURI, ContentType: r.Header.Get("Content-Type"), Body: b})
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) take() []got {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.got
	u.got = nil
	return out
}

// relayTo is a relay for octo/repo forwarding to u, served in process.
func relayTo(t testing.TB, u *upstream) *Relay {
	r, err := New(Options{Policy: policy, APIURL: u.srv.URL, GraphQLURL: u.srv.URL + "/graphql", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serve sends one request through r's handler, as the sandbox's socket delivers it.
func serve(r *Relay, method, target, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://api.github.com"+target, strings.NewReader(string(body)))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// TestRelayForwardsWhatItChecked: each request the policy reads one way and GitHub another is
// refused, or forwarded rebuilt so that GitHub reads what the policy checked (issue 19).
func TestRelayForwardsWhatItChecked(t *testing.T) {
	for _, tc := range []struct {
		name, method, target, contentType, body string
	}{
		{"query and Query", "POST", "/graphql", "application/json", `{"query":"mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","Query":"{ rateLimit { limit } }"}`},
		{"Query and query", "POST", "/graphql", "application/json", `{"Query":"{ rateLimit { limit } }","query":"mutation { addComment(input: {subjectId: \"I_1\", body: \"x\"}) { clientMutationId } }"}`},
		{"variables and Variables", "POST", "/graphql", "application/json", `{"query":"query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }","variables":{"o":"victim","n":"private"},"Variables":{"o":"octo","n":"repo"}}`},
		{"a key twice", "POST", "/graphql", "application/json", `{"query":"mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","query":"{ rateLimit { limit } }"}`},
		{"a form body", "POST", "/graphql", "application/x-www-form-urlencoded", `query=mutation+%7B+closeIssue%28input%3A+%7BissueId%3A+%22I_1%22%7D%29+%7B+clientMutationId+%7D+%7D`},
		{"a form body shaped as JSON", "POST", "/graphql", "application/x-www-form-urlencoded", `{"query":"{ rateLimit { limit } }"}`},
		{"an unknown key", "POST", "/graphql", "application/json", `{"query":"{ rateLimit { limit } }","extensions":{"persistedQuery":{"sha256Hash":"x"}}}`},
		{"q twice", "GET", "/search/issues?q=repo:octo/repo&q=repo:victim/private", "", ""},
		{"q twice, the victim first", "GET", "/search/issues?q=repo:victim/private&q=repo:octo/repo", "", ""},
		{"per_page twice", "GET", "/repos/octo/repo/issues?per_page=1&per_page=100", "", ""},
		{"organization secrets", "GET", "/repos/octo/repo/actions/organization-secrets", "", ""},
		{"organization variables", "GET", "/repos/octo/repo/actions/organization-variables", "", ""},
		{"dependabot secrets", "GET", "/repos/octo/repo/dependabot/secrets", "", ""},
		{"environments", "GET", "/repos/octo/repo/environments", "", ""},
		{"deployments", "GET", "/repos/octo/repo/deployments", "", ""},
		{"collaborators", "GET", "/repos/octo/repo/collaborators", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t)
			w := serve(relayTo(t, u), tc.method, tc.target, tc.contentType, []byte(tc.body))
			for _, g := range u.take() {
				if w.Code != http.StatusForbidden {
					if why := forwardedWrong(g); why != "" {
						t.Errorf("forwarded %s %s (%s) %s: %s", g.Method, g.URI, g.ContentType, g.Body, why)
					}
					continue
				}
				t.Errorf("refused with %d yet forwarded %s %s", w.Code, g.Method, g.URI)
			}
			if w.Code == http.StatusOK {
				return
			}
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "refused") {
				t.Errorf("answer %d %s; want 200 as checked, or 403 refused", w.Code, w.Body)
			}
		})
	}
}

// TestRelayRefusesPathsOffTheAllowList: the refusal names the path and the allow-list.
func TestRelayRefusesPathsOffTheAllowList(t *testing.T) {
	u := newUpstream(t)
	w := serve(relayTo(t, u), "GET", "/repos/octo/repo/actions/organization-secrets", "", nil)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "actions/organization-secrets is not on the relay's allow-list") {
		t.Errorf("answer %d %s; want 403 naming the path and the allow-list", w.Code, w.Body)
	}
	if g := u.take(); len(g) != 0 {
		t.Errorf("forwarded %+v", g)
	}
}

// TestRelayForwardsReadsRebuilt: what passes reaches GitHub as the relay wrote it: a JSON body
// of the checked values with the relay's Content-Type, a query of the checked parameters.
func TestRelayForwardsReadsRebuilt(t *testing.T) {
	u := newUpstream(t)
	r := relayTo(t, u)
	for _, tc := range []struct {
		method, target, contentType, body string
		uri, wantType, wantBody           string
	}{
		{"POST", "/graphql", "", `{"operationName":"A","variables":{"n":"repo","big":12345678901234567890},"query":"query A($n: String!) { repository(owner: \"octo\", name: $n) { id } }"}`,
			"/graphql", "application/json", `{"query":"query A($n: String!) { repository(owner: \"octo\", name: $n) { id } }","variables":{"big":12345678901234567890,"n":"repo"},"operationName":"A"}`},
		{"POST", "/graphql", "application/json; charset=utf-8", `{"query":"{ rateLimit { limit } }"}`, "/graphql", "application/json", `{"query":"{ rateLimit { limit } }"}`},
		{"GET", "/search/issues?q=repo%3Aocto%2Frepo+is%3Aopen&per_page=5", "", "", "/search/issues?per_page=5&q=repo%3Aocto%2Frepo+is%3Aopen", "", ""},
		{"GET", "/repos/octo/repo/contents/a%3Fb%23c?ref=main", "", "", "/repos/octo/repo/contents/a%3Fb%23c?ref=main", "", ""},
		{"GET", "/repos/octo/repo/issues/7/comments", "text/plain", "", "/repos/octo/repo/issues/7/comments", "", ""},
	} {
		w := serve(r, tc.method, tc.target, tc.contentType, []byte(tc.body))
		g := u.take()
		if w.Code != http.StatusOK || len(g) != 1 {
			t.Errorf("%s %s = %d %s, forwarded %d; want it forwarded once", tc.method, tc.target, w.Code, w.Body, len(g))
			continue
		}
		if g[0].URI != tc.uri || g[0].ContentType != tc.wantType || string(g[0].Body) != tc.wantBody {
			t.Errorf("%s %s reached GitHub as %s (%q) %s; want %s (%q) %s", tc.method, tc.target, g[0].URI, g[0].ContentType, g[0].Body, tc.uri, tc.wantType, tc.wantBody)
		}
	}
}
