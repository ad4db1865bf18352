package githubfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// apiPrefix is where GitHub Enterprise Server serves its REST API. Serving only there
	// proves that a client follows GITHUB_API_URL instead of assuming api.github.com.
	apiPrefix = "/api/v3"
	// graphQLPath is where GitHub Enterprise Server serves GraphQL.
	graphQLPath = "/api/graphql"
	// appLogin is the author of what API clients create, as it is for the job's token.
	appLogin = "github-actions[bot]"
	// firstCommentID keeps comment IDs far from issue numbers, so a client that mixes them up
	// addresses nothing.
	firstCommentID = 1001
	// defaultPerPage and maxPerPage are GitHub's page sizes.
	defaultPerPage, maxPerPage = 30, 100
)

// GitHub is a stateful stand-in for the part of the GitHub REST API that internal/githubapi
// uses, for one repository, served under /api/v3 as on GitHub Enterprise Server. It is built
// in go-github's test style: a ServeMux of method-aware handlers, every request counted and
// its body recorded by endpoint. Requests need "Authorization: Bearer <token>" (401 "Bad
// credentials" otherwise), requests for another repository get 404, and a request for an
// endpoint the fake does not serve fails the test.
//
// Issues and pull requests share one number space: a pull request created through the API
// gets the next number after every number seen so far (in setters and requests). Lists are
// paginated as GitHub does (per_page, default 30, at most 100; page; a Link header), pull
// requests newest first, comments oldest first. A pull request body that mentions #N adds a
// cross-referenced event, authored by github-actions[bot] with association NONE, to issue N's
// timeline, as GitHub does for an issue it knows. A GitHub App's bot ("name[bot]") is never a
// collaborator: its permission is none.
type GitHub struct {
	URL        string // the server root: GITHUB_SERVER_URL; html_url values live under it
	APIURL     string // URL + "/api/v3": GITHUB_API_URL
	GraphQLURL string // URL + "/api/graphql": GITHUB_GRAPHQL_URL

	t              testing.TB
	token          string
	owner, repo    string
	mux            *http.ServeMux
	mu             sync.Mutex
	endpoints      map[string]bool // "METHOD /path" patterns served
	calls          map[string]int
	bodies         map[string][]string
	failures       map[string][]failure
	permissions    map[string]string // lower-case login → role
	numbers        map[int]bool      // issue and pull request numbers in use
	prs            []PR              // by number
	comments       []Comment         // by ID
	labels         map[int][]string
	linked         map[int][]LinkedPR
	issues         map[int]*Issue
	files          map[int][]File
	reviews        []Review
	reviewComments []ReviewComment // by ID, replies included
	reactions      []Reaction      // by ID, those taken off gone
	log            []string        // "METHOD /path" of every request, in arrival order
	writes         []string        // the body of every request but a GET, in arrival order
	nextCommentID  int64
	noDrafts       bool // drafts are not supported here, as in private repositories on Free and Pro
	noActionsPRs   bool // "Allow GitHub Actions to create and approve pull requests" is off
}

// PR is a pull request as the fake holds it.
type PR struct {
	Number int
	Head   string // "owner:branch", as GitHub labels it
	Base   string
	Title  string
	Body   string
	Draft  bool
	State  string // open or closed
	URL    string // html_url
	Edits  int    // PATCH requests that reached it
	// HeadSHA is the head's commit. The head's repository is the fake's when Head is on its
	// owner, else a fork of the same name under Head's owner.
	HeadSHA string
}

// Comment is an issue or pull request comment as the fake holds it.
type Comment struct {
	ID    int64
	Issue int
	Body  string
	URL   string // html_url
	Edits int    // PATCH requests that reached it
	// Author wrote it: appLogin, a Bot, for comments made through the API, as for the job's
	// token. AuthorAssociation is GitHub's relation of the author to the repository.
	Author            string
	AuthorAssociation string
}

// LinkedPR is a pull request that references an issue: a cross-referenced event on the
// issue's timeline.
type LinkedPR struct {
	Number int
	Author string
	// AuthorAssociation is OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...
	AuthorAssociation string
	// State is open or closed; "" means the state of the fake's own pull request with this
	// number, or open when there is none.
	State string
	// Repo is "owner/name" of the pull request; "" means the fake's repository.
	Repo string
	// Body is the pull request's description; "" means that of the fake's own pull request
	// with this number, if any.
	Body string
}

// failure is an answer sent once instead of handling a request.
type failure struct {
	status int
	header http.Header
	body   string
}

// NewGitHub starts a fake GitHub API for repo ("owner/name") that accepts token, and lives as
// long as the test.
func NewGitHub(t testing.TB, token, repo string) *GitHub {
	t.Helper()
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		t.Fatalf("NewGitHub: repo %q is not owner/name", repo)
	}
	g := &GitHub{
		t: t, token: token, owner: owner, repo: name,
		mux:           http.NewServeMux(),
		endpoints:     map[string]bool{},
		calls:         map[string]int{},
		bodies:        map[string][]string{},
		failures:      map[string][]failure{},
		permissions:   map[string]string{},
		numbers:       map[int]bool{},
		labels:        map[int][]string{},
		linked:        map[int][]LinkedPR{},
		issues:        map[int]*Issue{},
		files:         map[int][]File{},
		nextCommentID: firstCommentID,
	}
	g.route("GET /repos/{owner}/{repo}/collaborators/{user}/permission", g.getPermission)
	g.route("GET /repos/{owner}/{repo}/pulls", g.listPRs)
	g.route("POST /repos/{owner}/{repo}/pulls", g.createPR)
	g.route("PATCH /repos/{owner}/{repo}/pulls/{number}", g.editPR)
	g.route("GET /repos/{owner}/{repo}/issues/{number}/comments", g.listComments)
	g.route("POST /repos/{owner}/{repo}/issues/{number}/comments", g.createComment)
	g.route("PATCH /repos/{owner}/{repo}/issues/comments/{id}", g.editComment)
	g.route("POST /repos/{owner}/{repo}/issues/{number}/labels", g.addLabels)
	g.route("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}", g.removeLabel)
	g.route("GET /repos/{owner}/{repo}/issues/{number}/timeline", g.timeline)
	g.route("GET /repos/{owner}/{repo}/issues", g.listIssues)
	g.route("GET /repos/{owner}/{repo}/issues/{number}", g.getIssue)
	g.route("PATCH /repos/{owner}/{repo}/issues/{number}", g.editIssue)
	g.route("GET /repos/{owner}/{repo}/pulls/{number}/files", g.listFiles)
	g.route("GET /repos/{owner}/{repo}/pulls/{number}/reviews", g.listReviews)
	g.route("POST /repos/{owner}/{repo}/pulls/{number}/reviews", g.createReview)
	g.route("GET /repos/{owner}/{repo}/pulls/{number}/comments", g.listReviewComments)
	g.route("GET /repos/{owner}/{repo}/pulls/{number}", g.getPR)
	g.route("POST /repos/{owner}/{repo}/pulls/{number}/comments/{id}/replies", g.replyToReviewComment)
	g.route("PATCH /repos/{owner}/{repo}/pulls/comments/{id}", g.editReviewComment)
	g.route("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", g.reactTo(false))
	g.route("POST /repos/{owner}/{repo}/pulls/comments/{id}/reactions", g.reactTo(true))
	g.route("DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions/{reaction}", g.unreact(false))
	g.route("DELETE /repos/{owner}/{repo}/pulls/comments/{id}/reactions/{reaction}", g.unreact(true))
	g.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: no handler for %s %s%s", r.Method, apiPrefix, r.URL.Path)
		writeError(w, http.StatusNotFound, "Not Found")
	})

	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, g.mux))
	// GraphQL is served where GitHub Enterprise Server has it, beside the REST API.
	g.endpoints["POST /graphql"] = true
	root.HandleFunc("POST "+graphQLPath, g.handler("POST /graphql", false, g.graphQL))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: %s %s is outside %s", r.Method, r.URL.Path, apiPrefix)
		writeError(w, http.StatusNotFound, "Not Found")
	})
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	g.APIURL = srv.URL + apiPrefix
	g.GraphQLURL = srv.URL + graphQLPath
	return g
}

// route serves pattern with h, which runs holding the lock once the request is recorded,
// authenticated, not failed on purpose and for the fake's repository.
func (g *GitHub) route(pattern string, h func(w http.ResponseWriter, r *http.Request, body []byte)) {
	g.endpoints[pattern] = true
	g.mux.HandleFunc(pattern, g.handler(pattern, true, h))
}

// handler records a request to the endpoint pattern, checks its token and, for a repository's
// endpoint (repo), that it is the fake's, and answers a failure queued for it, before h.
func (g *GitHub) handler(pattern string, repo bool, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, http.StatusBadRequest, "Problems reading the request body")
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.calls[pattern]++
		g.bodies[pattern] = append(g.bodies[pattern], string(body))
		g.log = append(g.log, r.Method+" "+r.URL.Path)
		if r.Method != http.MethodGet {
			g.writes = append(g.writes, string(body))
		}
		if r.Header.Get("Authorization") != "Bearer "+g.token {
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		if queued := g.failures[pattern]; len(queued) > 0 {
			g.failures[pattern] = queued[1:]
			f := queued[0]
			for k, v := range f.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(f.status)
			_, _ = io.WriteString(w, f.body)
			return
		}
		if repo && (!strings.EqualFold(r.PathValue("owner"), g.owner) || !strings.EqualFold(r.PathValue("repo"), g.repo)) {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		h(w, r, body)
	}
}

// endpoint returns the key of method and path, a pattern as registered, failing the test
// when the fake does not serve it: a typo must not read as "never called".
func (g *GitHub) endpoint(method, path string) string {
	g.t.Helper()
	key := method + " " + path
	if !g.endpoints[key] {
		g.t.Fatalf("fake GitHub serves no endpoint %q", key)
	}
	return key
}

// Calls returns how many requests reached the endpoint method path, refused ones included.
// path is the endpoint's pattern, as in Calls("POST", "/repos/{owner}/{repo}/pulls"); one the
// fake does not serve fails the test.
func (g *GitHub) Calls(method, path string) int {
	g.t.Helper()
	key := g.endpoint(method, path)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[key]
}

// Writes returns the raw body of every request but a GET that reached the fake, on any route,
// GraphQL included, in arrival order: everything the client sent GitHub to write.
func (g *GitHub) Writes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.writes)
}

// Bodies returns the bodies of the requests to the endpoint method path, in arrival order.
func (g *GitHub) Bodies(method, path string) []string {
	g.t.Helper()
	key := g.endpoint(method, path)
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.bodies[key])
}

// FailNext answers the next authenticated request to the endpoint method path with status and
// body (GitHub's {"message": ...} for the status when body is ""), leaving the state alone.
// Calls queue up: each answers one request.
func (g *GitHub) FailNext(method, path string, status int, body string) {
	g.t.Helper()
	if body == "" {
		body = errorBody(status, http.StatusText(status))
	}
	g.fail(g.endpoint(method, path), failure{status: status, body: body})
}

// RateLimitNext answers the next times authenticated requests to the endpoint method path
// with GitHub's secondary rate limit: 403 with Retry-After in whole seconds (0 lets a client
// retry at once).
func (g *GitHub) RateLimitNext(method, path string, times int, retryAfter time.Duration) {
	g.t.Helper()
	key := g.endpoint(method, path)
	f := failure{
		status: http.StatusForbidden,
		header: http.Header{"Retry-After": {strconv.Itoa(int(retryAfter / time.Second))}},
		body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",` +
			`"documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#secondary-rate-limits"}`,
	}
	for range times {
		g.fail(key, f)
	}
}

// TooManyRequestsNext answers the next times authenticated requests to the endpoint method
// path with 429 and no header saying when to come back, which GitHub asks clients to meet by
// waiting at least a minute.
func (g *GitHub) TooManyRequestsNext(method, path string, times int) {
	g.t.Helper()
	key := g.endpoint(method, path)
	for range times {
		g.fail(key, failure{status: http.StatusTooManyRequests, body: errorBody(http.StatusTooManyRequests, "Too Many Requests")})
	}
}

// HeadNotYetSeenNext answers the next times pull request creations with the 422 GitHub gives
// for a head branch pushed a moment ago that it has not indexed yet.
func (g *GitHub) HeadNotYetSeenNext(times int) {
	g.t.Helper()
	key := g.endpoint("POST", "/repos/{owner}/{repo}/pulls")
	b, _ := json.Marshal(map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{{"resource": "PullRequest", "field": "head", "code": "invalid"}},
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
		"status":            "422",
	})
	for range times {
		g.fail(key, failure{status: http.StatusUnprocessableEntity, body: string(b)})
	}
}

// ForbidNext answers the next authenticated request to the endpoint method path with 403 and
// message, and, when accepted is not "", the X-Accepted-GitHub-Permissions header GitHub sends
// fine-grained tokens and Apps to say which permissions the endpoint takes ("contents=read;
// issues=write": either set).
func (g *GitHub) ForbidNext(method, path, message, accepted string) {
	g.t.Helper()
	f := failure{status: http.StatusForbidden, body: errorBody(http.StatusForbidden, message)}
	if accepted != "" {
		f.header = http.Header{"X-Accepted-Github-Permissions": {accepted}}
	}
	g.fail(g.endpoint(method, path), f)
}

// RefuseDrafts makes the repository one where GitHub does not support draft pull requests (a
// private repository on the Free or Pro plan): creating a draft answers 422.
func (g *GitHub) RefuseDrafts() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.noDrafts = true
}

// RefuseActionsPRs turns off the repository's "Allow GitHub Actions to create and approve pull
// requests": the job's token, which the fake's token stands for, may not open pull requests.
func (g *GitHub) RefuseActionsPRs() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.noActionsPRs = true
}

func (g *GitHub) fail(key string, f failure) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failures[key] = append(g.failures[key], f)
}

// SetPermission gives user a role on the repository: admin, maintain, write, triage, read or
// none. Users without one are unknown: GitHub answers 404.
func (g *GitHub) SetPermission(user, role string) {
	g.t.Helper()
	if legacyPermission(role) == "" {
		g.t.Fatalf("fake GitHub: unknown role %q", role)
	}
	if userType(user) == "Bot" {
		g.t.Fatalf("fake GitHub: %s is a GitHub App's bot, which cannot be a collaborator", user)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.permissions[strings.ToLower(user)] = role
}

// PRs returns the pull requests, by number.
func (g *GitHub) PRs() []PR {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.prs)
}

// AddPR adds a pull request, as if opened before the test, and returns it as stored. Number 0
// means the next number, State "" open, and a Head without an owner is on the repository's.
func (g *GitHub) AddPR(pr PR) PR {
	g.mu.Lock()
	defer g.mu.Unlock()
	if pr.Number == 0 {
		pr.Number = g.nextNumber()
	}
	if pr.State == "" {
		pr.State = "open"
	}
	pr.Head = g.qualify(pr.Head)
	pr.URL = g.htmlURL("pull", pr.Number)
	g.numbers[pr.Number] = true
	g.prs = append(g.prs, pr)
	slices.SortFunc(g.prs, func(a, b PR) int { return a.Number - b.Number })
	g.crossReference(pr)
	return pr
}

// SetPRBody replaces the body of pull request number, as its author editing it would.
func (g *GitHub) SetPRBody(number int, body string) {
	g.t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.IndexFunc(g.prs, func(pr PR) bool { return pr.Number == number })
	if i < 0 {
		g.t.Fatalf("fake GitHub: no pull request #%d", number)
	}
	g.prs[i].Body = body
}

// Comments returns the comments on issue, oldest first.
func (g *GitHub) Comments(issue int) []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Comment
	for _, c := range g.comments {
		if c.Issue == issue {
			out = append(out, c)
		}
	}
	return out
}

// AddComment adds a comment to issue, as if written before the test, and returns it.
func (g *GitHub) AddComment(issue int, author, association, body string) Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.addComment(issue, author, association, body)
}

// Labels returns the labels of issue, in the order they were added.
func (g *GitHub) Labels(issue int) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.labels[issue])
}

// SetLabels replaces the labels of issue.
func (g *GitHub) SetLabels(issue int, labels ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.numbers[issue] = true
	g.labels[issue] = slices.Clone(labels)
}

// AddLinkedPR adds to issue's timeline a cross-reference from pr.
func (g *GitHub) AddLinkedPR(issue int, pr LinkedPR) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.numbers[issue] = true
	if pr.Repo == "" {
		g.numbers[pr.Number] = true
	}
	g.linked[issue] = append(g.linked[issue], pr)
}

// The handlers below run holding g.mu.

func (g *GitHub) getPermission(w http.ResponseWriter, r *http.Request, _ []byte) {
	user := r.PathValue("user")
	if userType(user) == "Bot" {
		// An App is installed, never invited: GitHub reports no permission for its bot.
		respond(w, http.StatusOK, map[string]any{"permission": "none", "role_name": "none", "user": map[string]any{"login": user, "type": "Bot"}})
		return
	}
	role, ok := g.permissions[strings.ToLower(user)]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	respond(w, http.StatusOK, map[string]any{
		"permission": legacyPermission(role),
		"role_name":  role,
		"user":       map[string]any{"login": user},
	})
}

func (g *GitHub) listPRs(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head := q.Get("head")
	var out []map[string]any
	for _, pr := range slices.Backward(g.prs) { // GitHub: newest first
		// GitHub ignores a head filter without an owner, and so does the fake.
		if (state != "all" && pr.State != state) || (strings.Contains(head, ":") && !strings.EqualFold(pr.Head, head)) {
			continue
		}
		out = append(out, g.prJSON(pr))
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func (g *GitHub) createPR(w http.ResponseWriter, _ *http.Request, body []byte) {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !decode(w, body, &in) {
		return
	}
	for _, f := range []struct{ name, value string }{{"title", in.Title}, {"head", in.Head}, {"base", in.Base}} {
		if f.value == "" {
			writeValidation(w, map[string]string{"resource": "PullRequest", "field": f.name, "code": "missing_field"})
			return
		}
	}
	if g.noActionsPRs {
		writeError(w, http.StatusForbidden, "GitHub Actions is not permitted to create or approve pull requests.")
		return
	}
	if g.noDrafts && in.Draft {
		writeError(w, http.StatusUnprocessableEntity, "Draft pull requests are not supported in this repository.")
		return
	}
	head := g.qualify(in.Head)
	for _, pr := range g.prs {
		if pr.State == "open" && strings.EqualFold(pr.Head, head) && pr.Base == in.Base {
			writeValidation(w, map[string]string{"resource": "PullRequest", "code": "custom",
				"message": "A pull request already exists for " + head + "."})
			return
		}
	}
	pr := PR{Number: g.nextNumber(), Head: head, Base: in.Base, Title: in.Title, Body: in.Body, Draft: in.Draft, State: "open"}
	pr.URL = g.htmlURL("pull", pr.Number)
	g.numbers[pr.Number] = true
	g.prs = append(g.prs, pr)
	g.crossReference(pr)
	respond(w, http.StatusCreated, g.prJSON(pr))
}

func (g *GitHub) editPR(w http.ResponseWriter, r *http.Request, body []byte) {
	n, ok := pathNumber(r, "number")
	i := slices.IndexFunc(g.prs, func(pr PR) bool { return int64(pr.Number) == n })
	if !ok || i < 0 {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		Base  *string `json:"base"` // a branch name, unlike the base object of a pull request
		State *string `json:"state"`
	}
	if !decode(w, body, &in) {
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		writeValidation(w, map[string]string{"resource": "PullRequest", "field": "state", "code": "invalid"})
		return
	}
	pr := &g.prs[i]
	for _, set := range []struct {
		field *string
		value *string
	}{{&pr.Title, in.Title}, {&pr.Body, in.Body}, {&pr.Base, in.Base}, {&pr.State, in.State}} {
		if set.value != nil {
			*set.field = *set.value
		}
	}
	pr.Edits++
	g.crossReference(*pr)
	respond(w, http.StatusOK, g.prJSON(*pr))
}

func (g *GitHub) listComments(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, ok := g.issueNumber(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, c := range g.comments {
		if c.Issue == n {
			out = append(out, g.commentJSON(c))
		}
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func (g *GitHub) createComment(w http.ResponseWriter, r *http.Request, body []byte) {
	n, ok := g.issueNumber(w, r)
	if !ok {
		return
	}
	text, ok := commentBody(w, body)
	if !ok {
		return
	}
	respond(w, http.StatusCreated, g.commentJSON(g.addComment(n, appLogin, "NONE", text)))
}

// commentBody reads the body of a comment request, answering 422 as GitHub does when it is
// missing or empty.
func commentBody(w http.ResponseWriter, body []byte) (string, bool) {
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, body, &in) {
		return "", false
	}
	if in.Body == "" {
		writeValidation(w, map[string]string{"resource": "IssueComment", "field": "body", "code": "missing_field"})
		return "", false
	}
	return in.Body, true
}

func (g *GitHub) editComment(w http.ResponseWriter, r *http.Request, body []byte) {
	id, ok := pathNumber(r, "id")
	i := slices.IndexFunc(g.comments, func(c Comment) bool { return c.ID == id })
	editText(w, ok && i >= 0, body, func(text string) any {
		c := &g.comments[i]
		c.Body = text
		c.Edits++
		return g.commentJSON(*c)
	})
}

// editText answers a request that replaces a comment's body: 404 when the comment was not
// found, 422 for an empty body, else edit's answer to the new text.
func editText(w http.ResponseWriter, found bool, body []byte, edit func(text string) any) {
	if !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if text, ok := commentBody(w, body); ok {
		respond(w, http.StatusOK, edit(text))
	}
}

func (g *GitHub) addLabels(w http.ResponseWriter, r *http.Request, body []byte) {
	n, ok := g.issueNumber(w, r)
	if !ok {
		return
	}
	// GitHub takes a bare array, which go-github sends, or {"labels": [...]}.
	var names []string
	if err := json.Unmarshal(body, &names); err != nil {
		var in struct {
			Labels []string `json:"labels"`
		}
		if !decode(w, body, &in) {
			return
		}
		names = in.Labels
	}
	for _, name := range names {
		if !slices.ContainsFunc(g.labels[n], func(l string) bool { return strings.EqualFold(l, name) }) {
			g.labels[n] = append(g.labels[n], name)
		}
	}
	respond(w, http.StatusOK, labelsJSON(g.labels[n]))
}

func (g *GitHub) removeLabel(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, ok := g.issueNumber(w, r)
	if !ok {
		return
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(g.labels[n], func(l string) bool { return strings.EqualFold(l, name) })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Label does not exist")
		return
	}
	g.labels[n] = slices.Delete(g.labels[n], i, i+1)
	respond(w, http.StatusOK, labelsJSON(g.labels[n]))
}

func (g *GitHub) timeline(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, ok := g.issueNumber(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, l := range g.linked[n] {
		repo, state := l.Repo, l.State
		if repo == "" {
			repo = g.owner + "/" + g.repo
		}
		body := l.Body
		if i := slices.IndexFunc(g.prs, func(pr PR) bool { return pr.Number == l.Number }); i >= 0 && l.Repo == "" {
			if state == "" {
				state = g.prs[i].State
			}
			if body == "" {
				body = g.prs[i].Body
			}
		}
		if state == "" {
			state = "open"
		}
		user := map[string]any{"login": l.Author}
		out = append(out, map[string]any{
			"event": "cross-referenced",
			"actor": user,
			"source": map[string]any{"type": "issue", "issue": map[string]any{
				"number":             l.Number,
				"state":              state,
				"html_url":           g.URL + "/" + repo + "/pull/" + strconv.Itoa(l.Number),
				"user":               user,
				"author_association": l.AuthorAssociation,
				"body":               body,
				"pull_request":       map[string]any{"html_url": g.URL + "/" + repo + "/pull/" + strconv.Itoa(l.Number)},
				"repository_url":     g.APIURL + "/repos/" + repo,
				"repository":         map[string]any{"full_name": repo},
			}},
		})
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

// issueNumber reads the {number} of an issue request, which makes the number known.
func (g *GitHub) issueNumber(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, ok := pathNumber(r, "number")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	g.numbers[int(n)] = true
	return int(n), true
}

func (g *GitHub) nextNumber() int {
	next := 1
	for n := range g.numbers {
		next = max(next, n+1)
	}
	return next
}

func (g *GitHub) addComment(issue int, author, association, body string) Comment {
	g.numbers[issue] = true
	c := Comment{ID: g.nextCommentID, Issue: issue, Body: body, Author: author, AuthorAssociation: association}
	c.URL = fmt.Sprintf("%s#issuecomment-%d", g.htmlURL("issues", issue), c.ID)
	g.nextCommentID++
	g.comments = append(g.comments, c)
	return c
}

// mention is "#N" not inside a word, a path or a URL fragment.
var mention = regexp.MustCompile(`(?:^|[^\w/#&])#(\d+)\b`)

// crossReference links pr to every known issue its body mentions, once.
func (g *GitHub) crossReference(pr PR) {
	for _, m := range mention.FindAllStringSubmatch(pr.Body, -1) {
		issue, err := strconv.Atoi(m[1])
		if err != nil || issue == pr.Number || !g.numbers[issue] ||
			slices.ContainsFunc(g.linked[issue], func(l LinkedPR) bool { return l.Repo == "" && l.Number == pr.Number }) {
			continue
		}
		g.linked[issue] = append(g.linked[issue], LinkedPR{Number: pr.Number, Author: appLogin, AuthorAssociation: "NONE"})
	}
}

// qualify returns head as "owner:branch", a bare branch being on the repository's owner, as
// GitHub reads the head of a new pull request.
func (g *GitHub) qualify(head string) string {
	if strings.Contains(head, ":") {
		return head
	}
	return g.owner + ":" + head
}

func (g *GitHub) htmlURL(kind string, n int) string {
	return fmt.Sprintf("%s/%s/%s/%s/%d", g.URL, g.owner, g.repo, kind, n)
}

func (g *GitHub) prJSON(pr PR) map[string]any {
	headOwner, branch, _ := strings.Cut(pr.Head, ":")
	repo := func(owner string) map[string]any { // each one's default branch is main
		return map[string]any{"name": g.repo, "full_name": owner + "/" + g.repo, "owner": map[string]any{"login": owner},
			"fork": !strings.EqualFold(owner, g.owner), "clone_url": g.URL + "/" + owner + "/" + g.repo + ".git", "default_branch": "main"}
	}
	return map[string]any{
		"number":   pr.Number,
		"state":    pr.State,
		"title":    pr.Title,
		"body":     pr.Body,
		"draft":    pr.Draft,
		"html_url": pr.URL,
		"url":      fmt.Sprintf("%s/repos/%s/%s/pulls/%d", g.APIURL, g.owner, g.repo, pr.Number),
		"user":     map[string]any{"login": appLogin},
		"head":     map[string]any{"label": pr.Head, "ref": branch, "sha": pr.HeadSHA, "user": map[string]any{"login": headOwner}, "repo": repo(headOwner)},
		"base":     map[string]any{"label": g.owner + ":" + pr.Base, "ref": pr.Base, "repo": repo(g.owner)},
	}
}

func (g *GitHub) commentJSON(c Comment) map[string]any {
	return map[string]any{
		"id":                 c.ID,
		"body":               c.Body,
		"html_url":           c.URL,
		"url":                fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", g.APIURL, g.owner, g.repo, c.ID),
		"user":               map[string]any{"login": c.Author, "type": userType(c.Author)},
		"author_association": c.AuthorAssociation,
	}
}

// userType is GitHub's type of a login: bots end in "[bot]".
func userType(login string) string {
	if strings.HasSuffix(login, "[bot]") {
		return "Bot"
	}
	return "User"
}

func labelsJSON(names []string) []map[string]any {
	out := []map[string]any{}
	for _, name := range names {
		out = append(out, map[string]any{"name": name, "color": "ededed", "default": false})
	}
	return out
}

// legacyPermission is the permission field GitHub reports beside role_name, "" for an
// unknown role.
func legacyPermission(role string) string {
	switch role {
	case "admin", "write", "read", "none":
		return role
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return ""
}

// paginate returns the page of items r asks for and sets GitHub's Link header for the others.
func paginate[T any](w http.ResponseWriter, r *http.Request, apiURL string, items []T) []T {
	q := r.URL.Query()
	perPage, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || perPage < 1 {
		perPage = defaultPerPage
	}
	perPage = min(perPage, maxPerPage)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := max(1, (len(items)+perPage-1)/perPage)
	link := func(p int, rel string) string {
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(perPage))
		return fmt.Sprintf(`<%s%s?%s>; rel=%q`, apiURL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := min((page-1)*perPage, len(items))
	hi := min(lo+perPage, len(items))
	return append([]T{}, items[lo:hi]...) // [] rather than null for an empty page
}

// pathNumber parses the positive integer path value name.
func pathNumber(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return n, err == nil && n > 0
}

// decode parses a JSON request body, answering 400 as GitHub does when it cannot.
func decode(w http.ResponseWriter, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// respond answers with v as JSON.
func respond(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body) // the client may be gone; nothing to do about it
}

func errorBody(status int, message string) string {
	b, _ := json.Marshal(map[string]any{
		"message":           message,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(status),
	})
	return string(b)
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, []byte(errorBody(status, message)))
}

// writeValidation answers 422 "Validation Failed" with one error detail.
func writeValidation(w http.ResponseWriter, detail map[string]string) {
	respond(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{detail},
		"documentation_url": "https://docs.github.com/rest",
		"status":            "422",
	})
}
