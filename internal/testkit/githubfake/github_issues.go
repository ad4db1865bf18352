package githubfake

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Issue is an issue as the fake holds it; its labels and comments are the fake's Labels and
// Comments of its number.
type Issue struct {
	Number      int
	Title, Body string
	State       string // open or closed; "" means open
	StateReason string // completed, not_planned, reopened or ""
	Author      string
	Edits       int // PATCH requests that reached it
}

// File is a file a pull request changes, with GitHub's patch of it (the hunks of a unified
// diff, without the file headers).
type File struct {
	Name  string
	Patch string
}

// Review is a pull request review as the fake holds it.
type Review struct {
	ID       int64
	PR       int
	CommitID string
	Event    string // COMMENT, APPROVE or REQUEST_CHANGES
	Body     string
	Comments []ReviewComment
}

// ReviewComment is a review comment on one line of a pull request's diff: one of a review,
// or a reply in the thread another one started.
type ReviewComment struct {
	ID        int64
	ReviewID  int64 // the review it belongs to; 0 for one added with AddReviewComment
	InReplyTo int64 // the thread's first comment, for a reply; 0 for that one
	PR        int
	Path      string
	Line      int
	Side      string // LEFT or RIGHT
	DiffHunk  string
	Body      string
	URL       string // html_url
	Edits     int    // PATCH requests that reached it
	// Author wrote it: appLogin for comments made through the API. AuthorAssociation is GitHub's
	// relation of the author to the repository.
	Author            string
	AuthorAssociation string
}

// AddIssue adds an issue, as if opened before the test, with labels. Number 0 means the next.
func (g *GitHub) AddIssue(is Issue, labels ...string) Issue {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is.Number == 0 {
		is.Number = g.nextNumber()
	}
	if is.State == "" {
		is.State = "open"
	}
	if is.Author == "" {
		is.Author = "octocat"
	}
	g.numbers[is.Number] = true
	g.issues[is.Number] = &is
	g.labels[is.Number] = slices.Clone(labels)
	return is
}

// Issue returns issue number as it is now.
func (g *GitHub) Issue(number int) Issue {
	g.t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	is, ok := g.issues[number]
	if !ok {
		g.t.Fatalf("fake GitHub: no issue #%d", number)
	}
	return *is
}

// SetFiles sets what pull request number changes.
func (g *GitHub) SetFiles(number int, files ...File) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.files[number] = slices.Clone(files)
}

// Reviews returns the reviews of pull request number, oldest first.
func (g *GitHub) Reviews(number int) []Review {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Review
	for _, r := range g.reviews {
		if r.PR == number {
			for _, c := range g.reviewComments {
				if c.ReviewID == r.ID {
					r.Comments = append(r.Comments, c)
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// GraphQLCalls returns the GraphQL documents that reached the fake, in arrival order.
func (g *GitHub) GraphQLCalls() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.bodies["POST /graphql"])
}

// Requests returns every request that reached the fake, as "METHOD /path", in arrival order:
// what a test that must see no write looks at.
func (g *GitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.log)
}

// The handlers below run holding g.mu.

func (g *GitHub) issueJSON(is *Issue) map[string]any {
	labels := []map[string]any{}
	for _, l := range g.labels[is.Number] {
		labels = append(labels, map[string]any{"name": l})
	}
	var reason any
	if is.StateReason != "" {
		reason = is.StateReason
	}
	return map[string]any{
		"number":       is.Number,
		"title":        is.Title,
		"body":         is.Body,
		"state":        is.State,
		"state_reason": reason,
		"labels":       labels,
		"html_url":     g.htmlURL("issues", is.Number),
		"user":         map[string]any{"login": is.Author, "type": userType(is.Author)},
	}
}

func (g *GitHub) getIssue(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, ok := pathNumber(r, "number")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if is, ok := g.issues[int(n)]; ok {
		respond(w, http.StatusOK, g.issueJSON(is))
		return
	}
	// A pull request is an issue too, as GitHub answers it.
	if i := slices.IndexFunc(g.prs, func(pr PR) bool { return int64(pr.Number) == n }); i >= 0 {
		pr := g.prs[i]
		out := g.issueJSON(&Issue{Number: pr.Number, Title: pr.Title, Body: pr.Body, State: pr.State, Author: appLogin})
		out["pull_request"] = map[string]any{"html_url": pr.URL}
		respond(w, http.StatusOK, out)
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (g *GitHub) listIssues(w http.ResponseWriter, r *http.Request, _ []byte) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	var out []map[string]any
	for _, n := range slices.Sorted(maps.Keys(g.issues)) {
		if is := g.issues[n]; state == "all" || is.State == state {
			out = append(out, g.issueJSON(is))
		}
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func (g *GitHub) editIssue(w http.ResponseWriter, r *http.Request, body []byte) {
	n, _ := pathNumber(r, "number")
	is, ok := g.issues[int(n)]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		State       *string `json:"state"`
		StateReason *string `json:"state_reason"`
	}
	if !decode(w, body, &in) {
		return
	}
	if in.State != nil {
		if *in.State != "open" && *in.State != "closed" {
			writeValidation(w, map[string]string{"resource": "Issue", "field": "state", "code": "invalid"})
			return
		}
		is.State = *in.State
	}
	if in.StateReason != nil {
		switch *in.StateReason {
		case "completed", "not_planned", "reopened":
			is.StateReason = *in.StateReason
		default:
			writeValidation(w, map[string]string{"resource": "Issue", "field": "state_reason", "code": "invalid"})
			return
		}
	}
	is.Edits++
	respond(w, http.StatusOK, g.issueJSON(is))
}

func (g *GitHub) listFiles(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, _ := pathNumber(r, "number")
	out := []map[string]any{}
	for _, f := range g.files[int(n)] {
		out = append(out, map[string]any{"filename": f.Name, "status": "modified", "patch": f.Patch})
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func (g *GitHub) listReviews(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, _ := pathNumber(r, "number")
	out := []map[string]any{}
	for _, rv := range g.reviews {
		if rv.PR == int(n) {
			out = append(out, map[string]any{"id": rv.ID, "body": rv.Body, "state": reviewState(rv.Event), "commit_id": rv.CommitID,
				"user": map[string]any{"login": appLogin, "type": "Bot"}})
		}
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func (g *GitHub) listReviewComments(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, _ := pathNumber(r, "number")
	out := []map[string]any{}
	for _, c := range g.reviewComments {
		if c.PR == int(n) {
			out = append(out, g.reviewCommentJSON(c))
		}
	}
	respond(w, http.StatusOK, paginate(w, r, g.APIURL, out))
}

func reviewState(event string) string {
	switch event {
	case "APPROVE":
		return "APPROVED"
	case "REQUEST_CHANGES":
		return "CHANGES_REQUESTED"
	}
	return "COMMENTED"
}

// createReview stores a review with its comments, answering 422 as GitHub does when one of
// them is not on a line of the diff.
func (g *GitHub) createReview(w http.ResponseWriter, r *http.Request, body []byte) {
	n, _ := pathNumber(r, "number")
	if !slices.ContainsFunc(g.prs, func(pr PR) bool { return int64(pr.Number) == n }) {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		CommitID string `json:"commit_id"`
		Body     string `json:"body"`
		Event    string `json:"event"`
		Comments []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
			Side string `json:"side"`
			Body string `json:"body"`
		} `json:"comments"`
	}
	if !decode(w, body, &in) {
		return
	}
	switch in.Event {
	case "COMMENT", "APPROVE", "REQUEST_CHANGES":
	default:
		writeValidation(w, map[string]string{"resource": "PullRequestReview", "field": "event", "code": "invalid"})
		return
	}
	lines := diffLines(g.files[int(n)])
	rv := Review{ID: g.nextCommentID, PR: int(n), CommitID: in.CommitID, Event: in.Event, Body: in.Body}
	g.nextCommentID++
	for _, c := range in.Comments {
		side := c.Side
		if side == "" {
			side = "RIGHT"
		}
		if !lines[fmt.Sprintf("%s:%s:%d", c.Path, side, c.Line)] {
			respond(w, http.StatusUnprocessableEntity, map[string]any{
				"message": "Unprocessable Entity", "status": "422",
				"errors": []string{"Pull request review thread line must be part of the diff"},
			})
			return
		}
		rv.Comments = append(rv.Comments, ReviewComment{ReviewID: rv.ID, PR: int(n), Path: c.Path, Line: c.Line, Side: side, Body: c.Body,
			Author: appLogin, AuthorAssociation: "NONE"})
	}
	for _, c := range rv.Comments {
		g.addReviewComment(c)
	}
	rv.Comments = nil // kept with the other review comments; Reviews puts them back
	g.reviews = append(g.reviews, rv)
	respond(w, http.StatusOK, map[string]any{"id": rv.ID, "body": rv.Body, "state": reviewState(rv.Event),
		"html_url": fmt.Sprintf("%s#pullrequestreview-%d", g.htmlURL("pull", int(n)), rv.ID)})
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// diffLines are the "path:SIDE:line" a review may comment on: every line of every hunk, the
// removed ones on the LEFT, the added ones on the RIGHT, the context on both.
func diffLines(files []File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		var left, right int
		for _, l := range strings.Split(f.Patch, "\n") {
			if m := hunkHeader.FindStringSubmatch(l); m != nil {
				left, _ = strconv.Atoi(m[1])
				right, _ = strconv.Atoi(m[2])
				continue
			}
			switch {
			case strings.HasPrefix(l, "-"):
				out[fmt.Sprintf("%s:LEFT:%d", f.Name, left)] = true
				left++
			case strings.HasPrefix(l, "+"):
				out[fmt.Sprintf("%s:RIGHT:%d", f.Name, right)] = true
				right++
			case strings.HasPrefix(l, " "):
				out[fmt.Sprintf("%s:LEFT:%d", f.Name, left)] = true
				out[fmt.Sprintf("%s:RIGHT:%d", f.Name, right)] = true
				left++
				right++
			}
		}
	}
	return out
}

// graphQL answers the part of GitHub's GraphQL API that gh issue list and gh issue view read.
func (g *GitHub) graphQL(w http.ResponseWriter, _ *http.Request, body []byte) {
	out, ok := execGraphQL(body, g.queryRoot())
	if !ok {
		respond(w, http.StatusBadRequest, out)
		return
	}
	respond(w, http.StatusOK, out)
}

// issueFields are the fields the fake's issues have, which gh asks for before it builds its
// queries.
var issueFields = []string{"id", "number", "title", "body", "url", "state", "stateReason", "closed", "createdAt", "updatedAt", "closedAt",
	"author", "labels", "comments", "assignees", "milestone", "reactionGroups"}

func (g *GitHub) queryRoot() gqlObject {
	return gqlObject{
		"__typename": "Query",
		"__type": gqlResolver(func(args map[string]any) any {
			fields := []gqlObject{}
			for _, f := range issueFields {
				fields = append(fields, gqlObject{"name": f})
			}
			return gqlObject{"name": args["name"], "fields": fields}
		}),
		"rateLimit": gqlObject{"limit": 5000, "remaining": 4999, "cost": 1},
		"search": gqlResolver(func(args map[string]any) any {
			nodes := g.searchIssues(fmt.Sprint(args["query"]))
			c := gqlConnection(nodes, args)
			c["issueCount"] = len(nodes)
			return c
		}),
		"node": gqlResolver(func(args map[string]any) any {
			n, err := strconv.Atoi(strings.TrimPrefix(fmt.Sprint(args["id"]), "I_"))
			if is, ok := g.issues[n]; ok && err == nil {
				return g.issueObject(is)
			}
			return nil
		}),
		"repository": gqlResolver(func(args map[string]any) any {
			if !strings.EqualFold(fmt.Sprint(args["owner"]), g.owner) || !strings.EqualFold(fmt.Sprint(args["name"]), g.repo) {
				return nil
			}
			return g.repositoryObject()
		}),
	}
}

func (g *GitHub) repositoryObject() gqlObject {
	return gqlObject{
		"__typename":       "Repository",
		"id":               "R_fake",
		"name":             g.repo,
		"nameWithOwner":    g.owner + "/" + g.repo,
		"hasIssuesEnabled": true,
		"viewerPermission": "READ",
		"issue": gqlResolver(func(args map[string]any) any {
			if n, ok := gqlInt(args["number"]); ok {
				if is, ok := g.issues[n]; ok {
					return g.issueObject(is)
				}
			}
			return nil
		}),
		"issueOrPullRequest": gqlResolver(func(args map[string]any) any {
			if n, ok := gqlInt(args["number"]); ok {
				if is, ok := g.issues[n]; ok {
					return g.issueObject(is)
				}
			}
			return nil
		}),
		"issues": gqlResolver(func(args map[string]any) any {
			states := map[string]bool{}
			if list, ok := args["states"].([]any); ok {
				for _, s := range list {
					states[strings.ToLower(fmt.Sprint(s))] = true
				}
			} else if s, ok := args["states"].(string); ok {
				states[strings.ToLower(s)] = true
			}
			var want []string
			if list, ok := args["labels"].([]any); ok {
				for _, l := range list {
					want = append(want, fmt.Sprint(l))
				}
			}
			var nodes []gqlObject
			for _, n := range slices.Backward(slices.Sorted(maps.Keys(g.issues))) { // newest first
				is := g.issues[n]
				if len(states) > 0 && !states[is.State] {
					continue
				}
				if slices.ContainsFunc(want, func(l string) bool {
					return !slices.ContainsFunc(g.labels[n], func(have string) bool { return strings.EqualFold(have, l) })
				}) {
					continue
				}
				nodes = append(nodes, g.issueObject(is))
			}
			return gqlConnection(nodes, args)
		}),
	}
}

// searchIssues are the issues a search query finds, newest first: it reads repo:, label:,
// -label:, state: and is:open or is:closed, and ignores the rest.
func (g *GitHub) searchIssues(q string) []gqlObject {
	var nodes []gqlObject
	for _, n := range slices.Backward(slices.Sorted(maps.Keys(g.issues))) {
		is, match := g.issues[n], true
		for _, term := range strings.Fields(q) {
			neg := strings.HasPrefix(term, "-")
			key, v, _ := strings.Cut(strings.TrimPrefix(term, "-"), ":")
			v = strings.Trim(v, `"`)
			hasLabel := slices.ContainsFunc(g.labels[n], func(l string) bool { return strings.EqualFold(l, v) })
			switch key {
			case "repo":
				match = match && strings.EqualFold(v, g.owner+"/"+g.repo)
			case "label":
				match = match && hasLabel != neg
			case "state", "is":
				if v == "open" || v == "closed" {
					match = match && (is.State == v) != neg
				}
			}
		}
		if match {
			nodes = append(nodes, g.issueObject(is))
		}
	}
	return nodes
}

func (g *GitHub) issueObject(is *Issue) gqlObject {
	var labels, comments []gqlObject
	for _, l := range g.labels[is.Number] {
		labels = append(labels, gqlObject{"__typename": "Label", "id": "L_" + l, "name": l, "description": "", "color": "ededed"})
	}
	for _, c := range g.comments {
		if c.Issue == is.Number {
			comments = append(comments, gqlObject{"__typename": "IssueComment", "id": "IC_" + strconv.FormatInt(c.ID, 10),
				"author": gqlObject{"login": c.Author}, "authorAssociation": c.AuthorAssociation, "body": c.Body, "url": c.URL,
				"createdAt": "2026-01-01T00:00:00Z", "includesCreatedEdit": false, "isMinimized": false, "minimizedReason": "",
				"reactionGroups": []gqlObject{}, "viewerDidAuthor": false})
		}
	}
	var reason any
	if is.StateReason != "" {
		reason = strings.ToUpper(is.StateReason)
	}
	return gqlObject{
		"__typename":     "Issue",
		"id":             "I_" + strconv.Itoa(is.Number),
		"number":         is.Number,
		"title":          is.Title,
		"body":           is.Body,
		"url":            g.htmlURL("issues", is.Number),
		"state":          strings.ToUpper(is.State),
		"stateReason":    reason,
		"closed":         is.State == "closed",
		"createdAt":      "2026-01-01T00:00:00Z",
		"updatedAt":      "2026-01-01T00:00:00Z",
		"closedAt":       nil,
		"author":         gqlObject{"login": is.Author},
		"milestone":      nil,
		"reactionGroups": []gqlObject{},
		"labels":         gqlResolver(func(args map[string]any) any { return gqlConnection(labels, args) }),
		"comments":       gqlResolver(func(args map[string]any) any { return gqlConnection(comments, args) }),
		"assignees":      gqlResolver(func(args map[string]any) any { return gqlConnection(nil, args) }),
	}
}
