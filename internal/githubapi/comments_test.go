package githubapi

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// fakeComments is an in-memory comment thread on o/r#5, served two to a page so every
// listing spans pages.
type fakeComments struct {
	mu       sync.Mutex
	comments []*fakeComment
	nextID   int64
}

type fakeComment struct {
	ID                int64    `json:"id"`
	Body              string   `json:"body"`
	URL               string   `json:"html_url"`
	User              fakeUser `json:"user"`
	AuthorAssociation string   `json:"author_association"`
}

type fakeUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

const commentsPerPage = 2

func (f *fakeComments) add(body string) *fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	c := &fakeComment{ID: 100 + f.nextID, Body: body, User: fakeUser{"github-actions[bot]", "Bot"}, AuthorAssociation: "NONE"}
	c.URL = fmt.Sprintf("https://github.com/o/r/issues/5#issuecomment-%d", c.ID)
	f.comments = append(f.comments, c)
	return c
}

func (f *fakeComments) register(t *testing.T, mux *http.ServeMux) {
	mux.HandleFunc("/repos/o/r/issues/5/comments", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "GET":
			f.mu.Lock()
			all := slices.Clone(f.comments)
			f.mu.Unlock()
			paginate(t, w, r, all, commentsPerPage)
		case "POST":
			var req struct{ Body string }
			decodeBody(t, r, &req)
			writeJSON(t, w, http.StatusCreated, f.add(req.Body))
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
	})
	mux.HandleFunc("/repos/o/r/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, "PATCH")
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		var req struct{ Body string }
		decodeBody(t, r, &req)
		f.mu.Lock()
		defer f.mu.Unlock()
		i := slices.IndexFunc(f.comments, func(c *fakeComment) bool { return c.ID == id })
		if i < 0 {
			http.NotFound(w, r)
			return
		}
		f.comments[i].Body = req.Body
		writeJSON(t, w, http.StatusOK, f.comments[i])
	})
}

const progressMarker = "sandcastle:progress:issue-5"

func TestUpsertComment_edits_marked_comment_on_a_later_page(t *testing.T) {
	client, mux, rec := setup(t)
	fake := &fakeComments{}
	fake.register(t, mux)
	fake.add("please fix this")
	fake.add("<!-- sandcastle:progress:issue-6 --> another run's comment")
	fake.add("mentions sandcastle:progress:issue-5 without the hidden tag")
	older := fake.add("run 1 of 2\n\n<!-- sandcastle:progress:issue-5 -->")
	fake.add("thanks")
	newest := fake.add("run 2 of 2\n\n<!-- sandcastle:progress:issue-5 -->") // page 3
	fake.add("a reply after it")                                             // page 4

	got, created, err := client.UpsertComment(t.Context(), "o", "r", 5, progressMarker, "iteration 1 of 3")
	if err != nil {
		t.Fatalf("UpsertComment: %v", err)
	}
	if created {
		t.Error("created = true, want false")
	}
	if want := (Comment{ID: newest.ID, URL: newest.URL}); got != want {
		t.Errorf("comment = %+v, want the newest marked one %+v", got, want)
	}
	if got, want := rec.count("GET /repos/o/r/issues/5/comments"), 4; got != want {
		t.Errorf("pages read = %d, want %d", got, want)
	}
	if got, want := rec.count("POST /repos/o/r/issues/5/comments"), 0; got != want {
		t.Errorf("POSTs = %d, want %d", got, want)
	}
	if got, want := rec.count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", newest.ID)), 1; got != want {
		t.Errorf("PATCHes of the newest = %d, want %d", got, want)
	}
	if got, want := rec.count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", older.ID)), 0; got != want {
		t.Errorf("PATCHes of the older = %d, want %d", got, want)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if got, want := newest.Body, "iteration 1 of 3\n\n<!-- sandcastle:progress:issue-5 -->"; got != want {
		t.Errorf("edited body = %q, want %q", got, want)
	}
}

func TestUpsertComment_created_once_then_edited(t *testing.T) {
	client, mux, rec := setup(t)
	fake := &fakeComments{}
	fake.register(t, mux)
	fake.add("please fix this")
	fake.add("+1")
	fake.add("any news?")

	first, created, err := client.UpsertComment(t.Context(), "o", "r", 5, progressMarker, "starting")
	if err != nil {
		t.Fatalf("first UpsertComment: %v", err)
	}
	if !created {
		t.Error("first: created = false, want true")
	}
	for i, body := range []string{"iteration 1 of 2", "iteration 2 of 2", "done"} {
		got, created, err := client.UpsertComment(t.Context(), "o", "r", 5, progressMarker, body)
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		if created {
			t.Errorf("update %d: created = true, want false", i)
		}
		if got != first {
			t.Errorf("update %d: comment = %+v, want %+v", i, got, first)
		}
	}
	if got, want := rec.count("POST /repos/o/r/issues/5/comments"), 1; got != want {
		t.Errorf("POSTs = %d, want %d", got, want)
	}
	if got, want := rec.count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", first.ID)), 3; got != want {
		t.Errorf("PATCHes = %d, want %d", got, want)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if got, want := len(fake.comments), 4; got != want {
		t.Errorf("comments = %d, want %d", got, want)
	}
}

func TestEditComment_keeps_the_marker(t *testing.T) {
	client, mux, rec := setup(t)
	fake := &fakeComments{}
	fake.register(t, mux)
	c := fake.add("old")

	got, err := client.EditComment(t.Context(), "o", "r", c.ID, "sandcastle:progress", "new text")
	if err != nil {
		t.Fatalf("EditComment: %v", err)
	}
	if want := (Comment{ID: c.ID, URL: c.URL}); got != want {
		t.Errorf("EditComment = %+v, want %+v", got, want)
	}
	if got, want := rec.body(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", c.ID), 0), `{"body":"new text\n\n<!-- sandcastle:progress -->"}`+"\n"; got != want {
		t.Errorf("request body = %q, want %q", got, want)
	}
}

func TestEditComment_missing_comment_names_it(t *testing.T) {
	client, mux, _ := setup(t)
	(&fakeComments{}).register(t, mux)
	_, err := client.EditComment(t.Context(), "o", "r", 999, "m", "x")
	if got, want := fmt.Sprint(err), "githubapi: edit comment 999 in o/r: 404 Not Found"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

// TestUpsertComment_only_takes_over_its_own_kind: a stranger who copies the marker into their
// comment does not get it edited; a bot's or a collaborator's (a personal token's) comment is.
func TestUpsertComment_only_takes_over_its_own_kind(t *testing.T) {
	tests := []struct {
		name        string
		user        fakeUser
		association string
		wantCreated bool
	}{
		{"stranger", fakeUser{"drive-by", "User"}, "NONE", true},
		{"contributor", fakeUser{"once", "User"}, "CONTRIBUTOR", true},
		{"collaborator", fakeUser{"maintainer", "User"}, "COLLABORATOR", false},
		{"bot", fakeUser{"my-app[bot]", "Bot"}, "NONE", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, _ := setup(t)
			fake := &fakeComments{}
			fake.register(t, mux)
			planted := fake.add("status <!-- " + progressMarker + " -->")
			planted.User, planted.AuthorAssociation = tt.user, tt.association

			got, created, err := client.UpsertComment(t.Context(), "o", "r", 5, progressMarker, "working")
			if err != nil {
				t.Fatalf("UpsertComment: %v", err)
			}
			if created != tt.wantCreated || (created == (got.ID == planted.ID)) {
				t.Errorf("created = %v, comment %d (planted %d); want created %v", created, got.ID, planted.ID, tt.wantCreated)
			}
		})
	}
}
