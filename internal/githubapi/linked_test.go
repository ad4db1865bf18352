package githubapi

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// crossRef is a timeline event saying that issue or pull request number referenced #5.
func crossRef(number int, pull bool, state, repo, author, association string) map[string]any {
	issue := map[string]any{
		"number":             number,
		"state":              state,
		"html_url":           "https://github.com/" + repo + "/pull/" + strconv.Itoa(number),
		"user":               map[string]string{"login": author},
		"author_association": association,
		"repository":         map[string]string{"full_name": repo},
	}
	if pull {
		issue["pull_request"] = map[string]string{"url": "https://api.github.com/repos/" + repo + "/pulls"}
	}
	return map[string]any{"event": "cross-referenced", "source": map[string]any{"type": "issue", "issue": issue}}
}

func TestOpenLinkedPRs(t *testing.T) {
	client, mux, rec := setup(t)
	// A reference reported without the repository object, only its URL, in other case.
	urlOnly := crossRef(11, true, "open", "o/r", "bob", "CONTRIBUTOR")
	src := urlOnly["source"].(map[string]any)["issue"].(map[string]any)
	delete(src, "repository")
	src["repository_url"] = "https://api.github.com/repos/O/R"

	withBody := crossRef(7, true, "open", "o/r", "alice", "COLLABORATOR")
	withBody["source"].(map[string]any)["issue"].(map[string]any)["body"] = "Fixes #5\n\n<!-- sandcastle/pr/5 -->"

	events := []map[string]any{
		{"event": "labeled", "label": map[string]string{"name": "agent:implement"}},
		withBody,
		crossRef(8, true, "closed", "o/r", "alice", "COLLABORATOR"), // closed
		crossRef(9, false, "open", "o/r", "carol", "MEMBER"),        // an issue, not a PR
		crossRef(10, true, "open", "x/y", "dave", "OWNER"),          // another repository
		crossRef(7, true, "open", "o/r", "alice", "COLLABORATOR"),   // referenced twice
		urlOnly,
	}
	mux.HandleFunc("/repos/o/r/issues/5/timeline", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, "GET")
		paginate(t, w, r, events, 4)
	})

	got, err := client.OpenLinkedPRs(t.Context(), "o", "r", 5)
	if err != nil {
		t.Fatalf("OpenLinkedPRs: %v", err)
	}
	want := []LinkedPR{
		{Number: 7, URL: "https://github.com/o/r/pull/7", Author: "alice", AuthorAssociation: "COLLABORATOR", Body: "Fixes #5\n\n<!-- sandcastle/pr/5 -->"},
		{Number: 11, URL: "https://github.com/o/r/pull/11", Author: "bob", AuthorAssociation: "CONTRIBUTOR"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("OpenLinkedPRs =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := rec.count("GET /repos/o/r/issues/5/timeline"), 2; got != want {
		t.Errorf("pages read = %d, want %d", got, want)
	}
}
