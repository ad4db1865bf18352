package githubfake

import (
	"fmt"
	"net/http"
	"slices"
)

// Reaction is a reaction to an issue comment or a review comment, as the fake holds it.
type Reaction struct {
	ID      int64
	Comment int64 // the comment reacted to
	Review  bool  // Comment is a review comment
	Content string
	User    string
}

// reactionContents are the reactions GitHub knows; any other is a 422.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// AddReviewComment adds a review comment, as if written before the test, and returns it as
// stored: a new ID, its URL, and for a reply (InReplyTo) the thread's path, line and side.
func (g *GitHub) AddReviewComment(c ReviewComment) ReviewComment {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.numbers[c.PR] = true
	return g.addReviewComment(c)
}

// ReviewComments returns the review comments on pull request number, replies included, oldest
// first.
func (g *GitHub) ReviewComments(number int) []ReviewComment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(g.reviewComments), func(c ReviewComment) bool { return c.PR != number })
}

// Reactions returns the contents of the reactions on comment (an issue comment's id, or a
// review comment's), in the order they were made, less those taken off.
func (g *GitHub) Reactions(comment int64) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, r := range g.reactions {
		if r.Comment == comment {
			out = append(out, r.Content)
		}
	}
	return out
}

// The handlers below run holding g.mu.

func (g *GitHub) addReviewComment(c ReviewComment) ReviewComment {
	c.ID = g.nextCommentID
	g.nextCommentID++
	if c.Side == "" {
		c.Side = "RIGHT"
	}
	if c.Author == "" {
		c.Author, c.AuthorAssociation = appLogin, "NONE"
	}
	c.URL = fmt.Sprintf("%s#discussion_r%d", g.htmlURL("pull", c.PR), c.ID)
	g.reviewComments = append(g.reviewComments, c)
	return c
}

func (g *GitHub) reviewCommentJSON(c ReviewComment) map[string]any {
	out := map[string]any{
		"id":                 c.ID,
		"path":               c.Path,
		"line":               c.Line,
		"side":               c.Side,
		"diff_hunk":          c.DiffHunk,
		"body":               c.Body,
		"html_url":           c.URL,
		"url":                fmt.Sprintf("%s/repos/%s/%s/pulls/comments/%d", g.APIURL, g.owner, g.repo, c.ID),
		"pull_request_url":   fmt.Sprintf("%s/repos/%s/%s/pulls/%d", g.APIURL, g.owner, g.repo, c.PR),
		"user":               map[string]any{"login": c.Author, "type": userType(c.Author)},
		"author_association": c.AuthorAssociation,
	}
	if c.ReviewID != 0 {
		out["pull_request_review_id"] = c.ReviewID
	}
	if c.InReplyTo != 0 {
		out["in_reply_to_id"] = c.InReplyTo
	}
	return out
}

// reviewComment finds review comment id, on pull request pr when pr is not 0.
func (g *GitHub) reviewComment(id int64, pr int) (int, bool) {
	i := slices.IndexFunc(g.reviewComments, func(c ReviewComment) bool { return c.ID == id && (pr == 0 || c.PR == pr) })
	return i, i >= 0
}

func (g *GitHub) getPR(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, ok := pathNumber(r, "number")
	i := slices.IndexFunc(g.prs, func(pr PR) bool { return int64(pr.Number) == n })
	if !ok || i < 0 {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	respond(w, http.StatusOK, g.prJSON(g.prs[i]))
}

// replyToReviewComment answers in the thread of a review comment of the pull request; GitHub
// takes replies to the thread's first comment only.
func (g *GitHub) replyToReviewComment(w http.ResponseWriter, r *http.Request, body []byte) {
	n, okN := pathNumber(r, "number")
	id, okID := pathNumber(r, "id")
	i, found := g.reviewComment(id, int(n))
	if !okN || !okID || !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	text, ok := commentBody(w, body)
	if !ok {
		return
	}
	first := g.reviewComments[i]
	if first.InReplyTo != 0 {
		writeValidation(w, map[string]string{"resource": "PullRequestReviewComment", "field": "in_reply_to", "code": "invalid",
			"message": "replies to replies are not supported"})
		return
	}
	c := g.addReviewComment(ReviewComment{InReplyTo: first.ID, PR: first.PR, Path: first.Path, Line: first.Line, Side: first.Side,
		DiffHunk: first.DiffHunk, Body: text})
	respond(w, http.StatusCreated, g.reviewCommentJSON(c))
}

func (g *GitHub) editReviewComment(w http.ResponseWriter, r *http.Request, body []byte) {
	id, ok := pathNumber(r, "id")
	i, found := g.reviewComment(id, 0)
	editText(w, ok && found, body, func(text string) any {
		c := &g.reviewComments[i]
		c.Body = text
		c.Edits++
		return g.reviewCommentJSON(*c)
	})
}

// reactTo adds a reaction of the token's user to an issue comment, or with review to a review
// comment: 201 with the new one, or 200 with the one that user already made with that content.
func (g *GitHub) reactTo(review bool) func(w http.ResponseWriter, r *http.Request, body []byte) {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		id, ok := pathNumber(r, "id")
		if !ok || !g.commentExists(id, review) {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		var in struct {
			Content string `json:"content"`
		}
		if !decode(w, body, &in) {
			return
		}
		if !slices.Contains(reactionContents, in.Content) {
			writeValidation(w, map[string]string{"resource": "Reaction", "field": "content", "code": "invalid"})
			return
		}
		if i := slices.IndexFunc(g.reactions, func(x Reaction) bool {
			return x.Comment == id && x.Review == review && x.Content == in.Content && x.User == appLogin
		}); i >= 0 {
			respond(w, http.StatusOK, reactionJSON(g.reactions[i]))
			return
		}
		x := Reaction{ID: g.nextCommentID, Comment: id, Review: review, Content: in.Content, User: appLogin}
		g.nextCommentID++
		g.reactions = append(g.reactions, x)
		respond(w, http.StatusCreated, reactionJSON(x))
	}
}

// unreact takes a reaction off an issue comment, or with review a review comment: 204.
func (g *GitHub) unreact(review bool) func(w http.ResponseWriter, r *http.Request, _ []byte) {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) {
		id, okID := pathNumber(r, "id")
		rid, okR := pathNumber(r, "reaction")
		i := slices.IndexFunc(g.reactions, func(x Reaction) bool { return x.ID == rid && x.Comment == id && x.Review == review })
		if !okID || !okR || i < 0 {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		g.reactions = slices.Delete(g.reactions, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (g *GitHub) commentExists(id int64, review bool) bool {
	if review {
		_, found := g.reviewComment(id, 0)
		return found
	}
	return slices.ContainsFunc(g.comments, func(c Comment) bool { return c.ID == id })
}

func reactionJSON(x Reaction) map[string]any {
	return map[string]any{"id": x.ID, "node_id": fmt.Sprintf("REA_%d", x.ID), "content": x.Content,
		"user": map[string]any{"login": x.User, "type": userType(x.User)}, "created_at": "2026-01-01T00:00:00Z"}
}
