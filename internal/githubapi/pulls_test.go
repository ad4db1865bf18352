package githubapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakePulls is an in-memory pull request store behaving like GitHub's: the list honours
// state and head, a second open pull request from one head is refused with 422.
type fakePulls struct {
	mu        sync.Mutex
	pulls     []*fakePull
	noCommits bool // refuse creation as GitHub does for a head without new commits
}

type fakePull struct {
	Number int    `json:"number"`
	State  string `json:"state"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Draft  bool   `json:"draft"`
	URL    string `json:"html_url"`
	Head   struct {
		Label string `json:"label"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

func (f *fakePulls) add(head, body string) *fakePull {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := &fakePull{Number: 40 + len(f.pulls), State: "open", Body: body}
	p.URL = fmt.Sprintf("https://github.com/o/r/pull/%d", p.Number)
	p.Head.Label = head
	p.Base.Ref = "main"
	f.pulls = append(f.pulls, p)
	return p
}

func (f *fakePulls) register(t *testing.T, mux *http.ServeMux) {
	mux.HandleFunc("/repos/o/r/pulls", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "GET":
			testFormValues(t, r, map[string]string{"state": "open"})
			head := r.URL.Query().Get("head")
			f.mu.Lock()
			var open []*fakePull
			for _, p := range slices.Backward(f.pulls) { // newest first, as GitHub lists them
				if p.State == "open" && (head == "" || p.Head.Label == head) {
					open = append(open, p)
				}
			}
			f.mu.Unlock()
			writeJSON(t, w, http.StatusOK, open)
		case "POST":
			var req struct {
				Title, Head, Base, Body string
				Draft                   bool
			}
			decodeBody(t, r, &req)
			if f.noCommits {
				writeJSON(t, w, http.StatusUnprocessableEntity, validationFailed(fmt.Sprintf("No commits between %s and %s", req.Base, strings.TrimPrefix(req.Head, "o:"))))
				return
			}
			f.mu.Lock()
			exists := slices.ContainsFunc(f.pulls, func(p *fakePull) bool { return p.State == "open" && p.Head.Label == req.Head })
			f.mu.Unlock()
			if exists {
				writeJSON(t, w, http.StatusUnprocessableEntity, validationFailed("A pull request already exists for "+req.Head+"."))
				return
			}
			p := f.add(req.Head, req.Body)
			f.mu.Lock()
			p.Title, p.Draft, p.Base.Ref = req.Title, req.Draft, req.Base
			f.mu.Unlock()
			writeJSON(t, w, http.StatusCreated, p)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
	})
	mux.HandleFunc("/repos/o/r/pulls/{number}", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, "PATCH")
		n, _ := strconv.Atoi(r.PathValue("number"))
		var req struct {
			Title, Body, Base *string
		}
		decodeBody(t, r, &req)
		f.mu.Lock()
		defer f.mu.Unlock()
		i := slices.IndexFunc(f.pulls, func(p *fakePull) bool { return p.Number == n })
		if i < 0 {
			http.NotFound(w, r)
			return
		}
		p := f.pulls[i]
		if req.Title != nil {
			p.Title = *req.Title
		}
		if req.Body != nil {
			p.Body = *req.Body
		}
		if req.Base != nil {
			p.Base.Ref = *req.Base
		}
		writeJSON(t, w, http.StatusOK, p)
	})
}

func validationFailed(message string) map[string]any {
	return map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{{"resource": "PullRequest", "code": "custom", "message": message}},
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
	}
}

func specForIssue5(title string) PRSpec {
	return PRSpec{Owner: "o", Repo: "r", Head: "agent/issue-5", Base: "main", Title: title,
		Body: "Closes #5", Draft: true, Marker: "sandcastle:pr:issue-5"}
}

func TestUpsertPR_created_then_updated_on_rerun(t *testing.T) {
	client, mux, rec := setupWith(t, Options{Gate: Gate{Closes: 5}}) // the run's issue: its "Closes #5" stays live
	fake := &fakePulls{}
	fake.register(t, mux)
	// Noise the marker search must skip: another issue's PR from another head.
	fake.add("o:agent/issue-6", "<!-- sandcastle:pr:issue-6 -->")

	pr, created, err := client.UpsertPR(t.Context(), specForIssue5("Fix #5: first"))
	if err != nil {
		t.Fatalf("first UpsertPR: %v", err)
	}
	if !created {
		t.Error("first UpsertPR: created = false, want true")
	}
	if got, want := rec.count("POST /repos/o/r/pulls"), 1; got != want {
		t.Fatalf("POSTs after first run = %d, want %d", got, want)
	}
	var sent struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	if err := json.Unmarshal([]byte(rec.body("POST /repos/o/r/pulls", 0)), &sent); err != nil {
		t.Fatalf("decode create body: %v", err)
	}
	if got, want := sent.Head, "o:agent/issue-5"; got != want {
		t.Errorf("create head = %q, want %q", got, want)
	}
	if got, want := sent.Base, "main"; got != want {
		t.Errorf("create base = %q, want %q", got, want)
	}
	if !sent.Draft {
		t.Error("create draft = false, want true")
	}
	if got, want := sent.Body, "Closes #5\n\n<!-- sandcastle:pr:issue-5 -->"; got != want {
		t.Errorf("create body = %q, want %q", got, want)
	}

	again, created, err := client.UpsertPR(t.Context(), specForIssue5("Fix #5: second"))
	if err != nil {
		t.Fatalf("second UpsertPR: %v", err)
	}
	if created {
		t.Error("second UpsertPR: created = true, want false")
	}
	if got, want := again, pr; got != want {
		t.Errorf("second UpsertPR = %+v, want the same PR %+v", got, want)
	}
	if got, want := rec.count("POST /repos/o/r/pulls"), 1; got != want {
		t.Errorf("POSTs after re-run = %d, want %d (no duplicate PR)", got, want)
	}
	if got, want := rec.count(fmt.Sprintf("PATCH /repos/o/r/pulls/%d", pr.Number)), 1; got != want {
		t.Errorf("PATCHes of #%d = %d, want %d", pr.Number, got, want)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if got, want := len(fake.pulls), 2; got != want {
		t.Errorf("pull requests = %d, want %d", got, want)
	}
	last := fake.pulls[len(fake.pulls)-1]
	if got, want := last.Title, "Fix #5: second"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got, want := strings.Count(last.Body, "<!-- sandcastle:pr:issue-5 -->"), 1; got != want {
		t.Errorf("markers in body = %d, want %d; body %q", got, want, last.Body)
	}
}

func TestUpsertPR_unprocessable(t *testing.T) {
	t.Run("no_commits_is_a_clear_error", func(t *testing.T) {
		client, mux, rec := setup(t)
		(&fakePulls{noCommits: true}).register(t, mux)
		_, _, err := client.UpsertPR(t.Context(), specForIssue5("Fix #5"))
		if err == nil {
			t.Fatal("UpsertPR succeeded, want an error")
		}
		if got, want := err.Error(), "githubapi: create pull request in o/r: 422 Validation Failed: No commits between main and agent/issue-5"; got != want {
			t.Errorf("error = %q\nwant    %q", got, want)
		}
		if got, want := asError(t, err).Status, http.StatusUnprocessableEntity; got != want {
			t.Errorf("Status = %d, want %d", got, want)
		}
		if got, want := rec.count("POST /repos/o/r/pulls"), 1; got != want {
			t.Errorf("POSTs = %d, want %d (422 is not retried)", got, want)
		}
	})
	t.Run("already_exists_updates_that_pr", func(t *testing.T) {
		client, mux, rec := setup(t)
		fake := &fakePulls{}
		fake.register(t, mux)
		human := fake.add("o:agent/issue-5", "opened by hand, no marker")

		pr, created, err := client.UpsertPR(t.Context(), specForIssue5("Fix #5"))
		if err != nil {
			t.Fatalf("UpsertPR: %v", err)
		}
		if created {
			t.Error("created = true, want false")
		}
		if got, want := pr.Number, human.Number; got != want {
			t.Errorf("PR = #%d, want the existing #%d", got, want)
		}
		if got, want := rec.count("POST /repos/o/r/pulls"), 1; got != want {
			t.Errorf("POSTs = %d, want %d", got, want)
		}
		if got, want := rec.count(fmt.Sprintf("PATCH /repos/o/r/pulls/%d", human.Number)), 1; got != want {
			t.Errorf("PATCHes = %d, want %d", got, want)
		}
		fake.mu.Lock()
		defer fake.mu.Unlock()
		if !strings.Contains(human.Body, "<!-- sandcastle:pr:issue-5 -->") {
			t.Errorf("adopted PR body %q lacks the marker, so the next run would not find it", human.Body)
		}
	})
}

func TestUpsertPR_rejects_bad_marker_before_any_request(t *testing.T) {
	client, _, rec := setup(t)
	spec := specForIssue5("Fix #5")
	spec.Marker = "a -- b"
	if _, _, err := client.UpsertPR(t.Context(), spec); err == nil || !strings.Contains(err.Error(), "invalid marker") {
		t.Errorf("UpsertPR with marker %q: error = %v, want an invalid marker error", spec.Marker, err)
	}
	if got, want := rec.total(), 0; got != want {
		t.Errorf("requests = %d, want %d", got, want)
	}
}
