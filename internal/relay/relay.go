package relay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Target is where the sandbox finds the relay's directory: the socket and gh's configuration.
const Target = "/run/sandcastle/github"

// socketName and configName are the files of the relay's directory.
const (
	socketName = "api.sock"
	configName = "config.yml"
)

// Dummy is the token the sandbox's gh sends; the relay drops it and sends the run's own.
const Dummy = "sandcastle-relay"

// maxBody bounds a request's body: a GraphQL document.
const maxBody = 1 << 20

// Options configure a relay.
type Options struct {
	Policy Policy
	// APIURL is the REST API the relay forwards to (GITHUB_API_URL: https://api.github.com, or
	// https://HOST/api/v3); GraphQLURL its GraphQL endpoint ("" means APIURL's: /graphql, or
	// /api/graphql on GitHub Enterprise Server).
	APIURL, GraphQLURL string
	Token              string
	// MaxRequests bounds the requests one run forwards; later ones are answered 429.
	MaxRequests int
	// Reserve is the part of GitHub's rate limit kept for the run's own writes: once GitHub
	// says no more than this many requests remain, the relay forwards none.
	Reserve int
	// Client sends the requests upstream; nil means one with a minute's timeout.
	Client *http.Client
	// Refused hears each refused request, one line each.
	Refused func(msg string)
}

// Relay is the read-only GitHub API for the sandbox.
type Relay struct {
	o        Options
	api      *url.URL // o.APIURL
	graphQL  *url.URL
	mu       sync.Mutex
	used     int
	remain   int // GitHub's last X-RateLimit-Remaining; -1 unknown
	refused  []string
	ids      map[string]bool // issues and pull requests the sandbox was shown, by node id; see learn
	read     map[int]bool    // and by number
	listener net.Listener
	server   *http.Server
	dir      string
}

// New returns a relay, not yet listening.
func New(o Options) (*Relay, error) {
	if o.Token == "" {
		return nil, errors.New("relay: no token to read GitHub with")
	}
	if o.Policy.Owner == "" || o.Policy.Name == "" {
		return nil, errors.New("relay: no repository to serve")
	}
	o.APIURL = strings.TrimRight(o.APIURL, "/")
	if o.APIURL == "" {
		o.APIURL = "https://api.github.com"
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: time.Minute}
	}
	// A redirect is the sandbox's to follow (a download link), never the relay's with its token.
	client := *o.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	o.Client = &client
	graphQL := o.GraphQLURL
	if graphQL == "" {
		if root, ok := strings.CutSuffix(o.APIURL, "/api/v3"); ok {
			graphQL = root + "/api/graphql"
		} else {
			graphQL = o.APIURL + "/graphql"
		}
	}
	api, err := url.Parse(o.APIURL)
	if err != nil {
		return nil, fmt.Errorf("relay: the API's URL: %w", err)
	}
	gql, err := url.Parse(graphQL)
	if err != nil {
		return nil, fmt.Errorf("relay: the GraphQL URL: %w", err)
	}
	return &Relay{o: o, api: api, graphQL: gql, remain: -1}, nil
}

// Refused are the requests refused so far, one line each.
func (r *Relay) Refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refused...)
}

// Forwarded is how many requests went to GitHub.
func (r *Relay) Forwarded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

// Listen makes dir, a new directory, with the relay's socket and a gh configuration that dials
// it, both for the sandbox's user uid:gid (-1 keeps ours), and serves there until Close.
func (r *Relay) Listen(dir string, uid, gid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	r.dir = dir
	config := "http_unix_socket: " + Target + "/" + socketName + "\nprompt: disabled\n"
	if err := os.WriteFile(filepath.Join(dir, configName), []byte(config), 0o644); err != nil {
		return r.fail(err)
	}
	sock := filepath.Join(dir, socketName)
	l, err := listenUnix(sock)
	if err != nil {
		return r.fail(err)
	}
	r.listener = l
	// Who reaches the directory reaches the socket: only the sandbox's user, and us.
	if err := os.Chmod(sock, 0o666); err != nil {
		return r.fail(err)
	}
	if uid >= 0 && (uid != os.Getuid() || gid != os.Getgid()) {
		if err := os.Chown(dir, uid, gid); err != nil {
			return r.fail(fmt.Errorf("giving the directory to the sandbox's user %d:%d: %w", uid, gid, err))
		}
	}
	r.server = &http.Server{Handler: r, ReadHeaderTimeout: 30 * time.Second}
	go r.server.Serve(l)
	return nil
}

// maxSocketPath is the longest path a Unix socket can be bound at: sun_path holds 108 bytes,
// the last a NUL.
const maxSocketPath = 107

// listenUnix listens on a Unix socket at path. A path too long for the kernel (a checkout deep
// in a runner's work directory, a test's temporary directory) is bound through a short link to
// its directory in the temporary directory, removed once the socket exists: the sandbox
// connects to it through its own, short mount point.
func listenUnix(path string) (net.Listener, error) {
	if len(path) <= maxSocketPath {
		return net.Listen("unix", path)
	}
	alias, err := os.MkdirTemp("", "sc-relay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(alias)
	link := filepath.Join(alias, "d")
	if err := os.Symlink(filepath.Dir(path), link); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", filepath.Join(link, filepath.Base(path)))
	if err != nil {
		return nil, err
	}
	// Its name is the link's, gone once Listen returns; Close removes the directory instead.
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	return l, nil
}

func (r *Relay) fail(err error) error {
	if r.listener != nil {
		r.listener.Close()
	}
	os.RemoveAll(r.dir)
	return fmt.Errorf("relay: %w", err)
}

// Close stops serving, cutting requests in flight, and removes the directory.
func (r *Relay) Close() error {
	if r.server != nil {
		r.server.Close()
	}
	if r.dir == "" {
		return nil
	}
	return os.RemoveAll(r.dir)
}

// Env is what the sandbox's processes need to use the relay: gh pointed at it (its host, a
// dummy token, this repository, the configuration that dials the socket) and, for plain HTTP,
// the socket and the API's URL to give curl --unix-socket. host is GitHub's (github.com, or a
// GitHub Enterprise Server's host).
func Env(host, owner, name string) map[string]string {
	// http: the socket speaks plain HTTP, which curl --unix-socket takes from the URL's scheme
	// (gh, dialling its http_unix_socket, ignores it).
	api := "http://" + host + "/api/v3"
	if host == "github.com" {
		api = "http://api.github.com"
	}
	return map[string]string{
		"GH_HOST":                  host,
		"GH_TOKEN":                 Dummy,
		"GH_ENTERPRISE_TOKEN":      Dummy,
		"GH_REPO":                  host + "/" + owner + "/" + name,
		"GH_CONFIG_DIR":            Target,
		"GH_NO_UPDATE_NOTIFIER":    "1",
		"GH_PROMPT_DISABLED":       "1",
		"SANDCASTLE_GITHUB_SOCKET": Target + "/" + socketName,
		"SANDCASTLE_GITHUB_API":    api,
	}
}

// forwarded are the request headers that reach GitHub; Authorization is the relay's own, and
// Content-Type too: a GraphQL body is the relay's JSON, a read has none.
var forwarded = []string{"Accept", "If-None-Match", "If-Modified-Since", "X-Github-Api-Version", "Graphql-Features", "Time-Zone", "User-Agent"}

func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		r.refuse(w, http.StatusRequestEntityTooLarge, &Refusal{Method: req.Method, Path: req.URL.EscapedPath(), Reason: "the body is over 1 MiB, or unreadable"})
		return
	}
	policy := r.o.Policy
	policy.Known = r.known
	checked, err := policy.Check(Request{Method: req.Method, Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery,
		ContentType: req.Header.Get("Content-Type"), Body: body})
	var refusal *Refusal
	if errors.As(err, &refusal) {
		r.refuse(w, http.StatusForbidden, refusal)
		return
	}
	if why := r.spend(); why != "" {
		r.refuse(w, http.StatusTooManyRequests, &Refusal{Method: req.Method, Path: req.URL.EscapedPath(), Reason: why})
		return
	}
	// The request upstream is made of what the policy checked alone: its path, escaped anew,
	// its parameters, its GraphQL body; nothing of the sandbox's request goes as it came.
	target := *r.api
	target.Path += checked.Path
	target.RawQuery = checked.Query.Encode()
	if checked.Kind == GraphQL {
		target = *r.graphQL
	}
	up, err := http.NewRequestWithContext(req.Context(), req.Method, target.String(), bytes.NewReader(checked.Body))
	if err != nil {
		http.Error(w, "relay: "+err.Error(), http.StatusBadGateway)
		return
	}
	for _, h := range forwarded {
		if v := req.Header.Values(h); len(v) > 0 {
			up.Header[h] = v
		}
	}
	if checked.Kind == GraphQL {
		up.Header.Set("Content-Type", "application/json")
	}
	up.Header.Set("Authorization", "Bearer "+r.o.Token)
	resp, err := r.o.Client.Do(up)
	if err != nil {
		// The error names the URL, never the header.
		http.Error(w, "relay: GitHub did not answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	r.note(resp.Header.Get("X-RateLimit-Remaining"))
	for k, v := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Set-Cookie", "Content-Length":
			continue
		case "Link":
			v = r.links(v, req)
		}
		w.Header()[k] = v
	}
	// What the sandbox read of the repository's issues and pull requests: a triage acts on
	// those alone, and gh reads an issue's comments again by its node id.
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 == 2 {
		r.learn(checked, answer)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
	if err == nil {
		_, _ = io.Copy(w, resp.Body)
	}
}

// maxAnswer bounds the part of a GraphQL answer the relay reads for ids; maxKnown how many it
// keeps.
const (
	maxAnswer = 16 << 20
	maxKnown  = 10000
)

// learn keeps the issues and pull requests of the repository an answer showed the sandbox: by
// number, for the triage, which acts only on what the run read; and by node id from GraphQL,
// since gh reads an issue's comments again through node(id). An issue is read when its own path
// was (issues/7, pulls/7/files), when an answer holds an object whose url names it (REST's
// issues and searches), or, in GraphQL, an object with a number that is an issue by its id, its
// url, or where it stands (issue, pullRequest, and the nodes of issues, pullRequests, search).
func (r *Relay) learn(c Checked, answer []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids, r.read = map[string]bool{}, map[int]bool{}
	}
	see := func(n int) {
		if n > 0 && len(r.read) < maxKnown {
			r.read[n] = true
		}
	}
	if segs := strings.Split(c.Path, "/"); c.Kind == REST && len(segs) >= 6 && (segs[4] == "issues" || segs[4] == "pulls") {
		n, _ := strconv.Atoi(segs[5])
		see(n)
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(answer))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return
	}
	var walk func(v any, role string)
	walk = func(v any, role string) {
		switch v := v.(type) {
		case map[string]any:
			id, _ := v["id"].(string)
			if c.Kind == GraphQL && issueID(id) && len(r.ids) < maxKnown {
				r.ids[id] = true
			}
			for _, k := range []string{"url", "issue_url", "pull_request_url"} {
				if u, ok := v[k].(string); ok {
					see(r.issueOf(u))
				}
			}
			num, _ := v["number"].(json.Number)
			if n, err := num.Int64(); c.Kind == GraphQL && err == nil && (role == "issue" || issueID(id)) {
				see(int(n))
			}
			for k, child := range v {
				walk(child, childRole(role, k))
			}
		case []any:
			for _, child := range v {
				walk(child, role)
			}
		}
	}
	walk(v, "")
}

// childRole is what the value of a GraphQL answer's field k holds, within one that holds role:
// "issue", "issues" (a connection of them), "edge" (its edges), or "".
func childRole(role, k string) string {
	switch {
	case k == "issue" || k == "pullRequest" || k == "issueOrPullRequest":
		return "issue"
	case k == "issues" || k == "pullRequests" || k == "search":
		return "issues"
	case role == "issues" && k == "nodes", role == "edge" && k == "node":
		return "issue"
	case role == "issues" && k == "edges":
		return "edge"
	}
	return ""
}

// issueOf is the number of the repository's issue or pull request a URL of GitHub names (the
// API's /repos/OWNER/NAME/issues/7, pulls/7, or the web's OWNER/NAME/issues/7, pull/7); 0 for
// any other.
func (r *Relay) issueOf(u string) int {
	m := issueURL.FindStringSubmatch(u)
	if m == nil || !r.o.Policy.ours(m[1], m[2]) {
		return 0
	}
	n, _ := strconv.Atoi(m[3])
	return n
}

// issueURL matches the end of an issue's or a pull request's URL, API or web.
var issueURL = regexp.MustCompile(`/([^/]+)/([^/]+)/(?:issues|pulls?)/(\d+)$`)

// Read says whether the sandbox was shown the repository's issue or pull request number.
func (r *Relay) Read(number int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read[number]
}

func (r *Relay) known(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
}

// issueID says whether id is GitHub's global id of an issue or a pull request: I_ and PR_ in
// the current format, "05:Issue…" and "011:PullRequest…" in base64 in the legacy one.
func issueID(id string) bool {
	if strings.HasPrefix(id, "I_") || strings.HasPrefix(id, "PR_") {
		return true
	}
	b, err := base64.StdEncoding.DecodeString(id)
	if err != nil {
		return false
	}
	_, kind, _ := strings.Cut(string(b), ":")
	return strings.HasPrefix(kind, "Issue") || strings.HasPrefix(kind, "PullRequest")
}

// spend counts one more forwarded request, or says why none may be.
func (r *Relay) spend() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.o.MaxRequests > 0 && r.used >= r.o.MaxRequests:
		return fmt.Sprintf("this run's budget of %d requests through the relay is spent", r.o.MaxRequests)
	case r.remain >= 0 && r.remain <= r.o.Reserve:
		return fmt.Sprintf("GitHub's rate limit has %d requests left, kept for the run's own writes", r.remain)
	}
	r.used++
	return ""
}

func (r *Relay) note(remaining string) {
	n, err := strconv.Atoi(remaining)
	if err != nil {
		return
	}
	r.mu.Lock()
	r.remain = n
	r.mu.Unlock()
}

func (r *Relay) refuse(w http.ResponseWriter, status int, refusal *Refusal) {
	msg := refusal.Error()
	r.mu.Lock()
	r.refused = append(r.refused, msg)
	r.mu.Unlock()
	if r.o.Refused != nil {
		r.o.Refused(msg)
	}
	b, _ := json.Marshal(map[string]string{"message": msg, "documentation_url": "https://github.com/sandcastle-action/sandcastle#reading-github-from-the-sandbox"})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// repositoriesID is GitHub's other name of a repository in the links it sends.
var repositoriesID = regexp.MustCompile(`/repositories/\d+(/|\?|>)`)

// links rewrites GitHub's pagination links so that the sandbox follows them through the relay:
// to the host the sandbox asked, and to the repository by name (GitHub names it by id there,
// a path the policy does not know; the link is GitHub's own answer about this repository).
func (r *Relay) links(values []string, req *http.Request) []string {
	base := "https://" + req.Host
	if strings.HasPrefix(req.URL.Path, "/api/v3/") {
		base += "/api/v3"
	}
	out := make([]string, len(values))
	for i, v := range values {
		v = strings.ReplaceAll(v, r.o.APIURL, base)
		out[i] = repositoriesID.ReplaceAllString(v, "/repos/"+r.o.Policy.Owner+"/"+r.o.Policy.Name+"$1")
	}
	return out
}
