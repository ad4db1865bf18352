package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Event names this package understands. Any other name loads as an Event with only Name set.
const (
	Issues                   = "issues"
	IssueComment             = "issue_comment"
	PullRequest              = "pull_request"
	PullRequestTarget        = "pull_request_target"
	PullRequestReviewComment = "pull_request_review_comment"
	Schedule                 = "schedule"
	WorkflowDispatch         = "workflow_dispatch"
	Push                     = "push"
)

// Event is the part of a webhook payload a run needs. Fields a payload does not carry stay
// zero: a schedule payload has no sender and no repository, so the caller fills Repository
// from GITHUB_REPOSITORY when it needs one.
type Event struct {
	Name       string   // GITHUB_EVENT_NAME
	Action     string   // "opened", "labeled", "created", …; empty for schedule, push, workflow_dispatch
	Actor      string   // sender.login
	ActorType  string   // sender.type: "User", "Bot" or "Organization"
	Repository string   // owner/name
	Issue      *Issue   // issues, issue_comment
	PR         *PR      // pull_request, pull_request_target, pull_request_review_comment
	Comment    *Comment // issue_comment, pull_request_review_comment
	Label      string   // the label added (labeled) or removed (unlabeled)
}

// Issue is an issue, or a pull request seen through the issues API (an issue_comment on a pull
// request), in which case IsPR is set and head and base are unknown.
type Issue struct {
	Number int
	Title  string
	Body   string
	IsPR   bool
}

// PR is a pull request.
type PR struct {
	Number   int
	Title    string
	Body     string
	HeadRef  string
	BaseRef  string
	HeadSHA  string
	HeadRepo string // owner/name of the head's repository; "" when it was deleted
	Fork     bool   // the head lives in another repository (or one since deleted): see ForkHead
	// Closed says the pull request was closed or merged when it was looked up (a payload's
	// pull request leaves it false): a run no longer works on its branch.
	Closed bool
	// DefaultBranch is the base repository's default branch, as the pull request was looked up
	// (a payload's pull request leaves it ""); a head on it is no branch a run may push to.
	DefaultBranch string
}

// ForkHead reports whether a pull request whose head is in the repository headRepo and whose
// base is in baseRepo (owner/name) comes from a fork: another repository, or one since deleted
// (headRepo ""), which is certainly not the base's.
func ForkHead(headRepo, baseRepo string) bool {
	return headRepo == "" || !strings.EqualFold(headRepo, baseRepo)
}

// Comment is an issue comment or a pull request review comment.
type Comment struct {
	ID   int64 // 0 when the payload has none
	Body string
	// Thread is, for a review comment, the first comment of its review thread: the comment
	// itself, or the one it replies to. GitHub takes replies to that one only. 0 for an issue
	// comment.
	Thread int64
	// Path, Line and DiffHunk are what a review comment is about: the file, the line of the
	// diff (the line it was made on when the diff moved since) and the hunk around it. Empty
	// for an issue comment, and Line is 0 for a comment on a whole file.
	Path     string
	Line     int
	DiffHunk string
}

// payload mirrors the webhook fields Load reads; GitHub documents these shapes under
// "Webhook events and payloads".
type payload struct {
	Action      string          `json:"action"`
	Sender      *account        `json:"sender"`
	Repository  *repository     `json:"repository"`
	Issue       *issuePayload   `json:"issue"`
	PullRequest *pullPayload    `json:"pull_request"`
	Comment     *commentPayload `json:"comment"`
	Label       *label          `json:"label"`
}

type label struct {
	Name string `json:"name"`
}

type account struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type repository struct {
	FullName string  `json:"full_name"`
	Name     string  `json:"name"`
	Owner    account `json:"owner"`
}

type issuePayload struct {
	Number      int    `json:"number"`
	Title       string `json:"title"`
	Body        string `json:"body"`
	PullRequest *struct {
		URL string `json:"url"`
	} `json:"pull_request"`
}

type pullPayload struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Head   gitRef `json:"head"`
	Base   gitRef `json:"base"`
}

type gitRef struct {
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

type commentPayload struct {
	ID           int64  `json:"id"`
	Body         string `json:"body"`
	InReplyTo    int64  `json:"in_reply_to_id"` // review comments: the thread's first comment
	Path         string `json:"path"`
	Line         *int   `json:"line"` // null once the diff no longer has the line
	OriginalLine *int   `json:"original_line"`
	DiffHunk     string `json:"diff_hunk"`
}

// Load reads the event named name (GITHUB_EVENT_NAME) from the JSON payload at path
// (GITHUB_EVENT_PATH). An event this package does not know loads with only Name set and its
// payload unread. A payload that is missing, is not a JSON object, or lacks the object its event
// is about (the issue of an issues event, the comment of a comment event) is an error.
func Load(name, path string) (*Event, error) {
	if name == "" {
		return nil, errors.New("load event: GITHUB_EVENT_NAME is empty")
	}
	if !known(name) {
		return &Event{Name: name}, nil
	}
	if path == "" {
		return nil, fmt.Errorf("load event %s: GITHUB_EVENT_PATH is empty", name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load event %s: read GITHUB_EVENT_PATH: %w", name, err)
	}
	// Unmarshal accepts "null" or "[]" into a struct without complaint; a payload is an object.
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("load event %s: GITHUB_EVENT_PATH %s does not hold a JSON object", name, path)
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("load event %s: parse GITHUB_EVENT_PATH %s: %w", name, path, err)
	}
	e, err := fromPayload(name, &p)
	if err != nil {
		return nil, fmt.Errorf("load event %s: GITHUB_EVENT_PATH %s: %w", name, path, err)
	}
	return e, nil
}

func known(name string) bool {
	switch name {
	case Issues, IssueComment, PullRequest, PullRequestTarget, PullRequestReviewComment,
		Schedule, WorkflowDispatch, Push:
		return true
	}
	return false
}

func fromPayload(name string, p *payload) (*Event, error) {
	e := &Event{Name: name, Action: p.Action}
	if p.Sender != nil {
		e.Actor, e.ActorType = p.Sender.Login, p.Sender.Type
	}
	if r := p.Repository; r != nil {
		e.Repository = r.FullName
		if e.Repository == "" && r.Owner.Login != "" && r.Name != "" {
			e.Repository = r.Owner.Login + "/" + r.Name
		}
	}

	need := func(present bool, what string) error {
		if !present {
			return fmt.Errorf("payload has no %s", what)
		}
		return nil
	}
	switch name {
	case Issues:
		if err := need(p.Issue != nil, "issue"); err != nil {
			return nil, err
		}
		e.Issue = issueFrom(p.Issue)
	case IssueComment:
		if err := errors.Join(need(p.Issue != nil, "issue"), need(p.Comment != nil, "comment")); err != nil {
			return nil, err
		}
		e.Issue, e.Comment = issueFrom(p.Issue), commentFrom(p.Comment)
	case PullRequest, PullRequestTarget:
		if err := need(p.PullRequest != nil, "pull_request"); err != nil {
			return nil, err
		}
		e.PR = prFrom(p.PullRequest)
	case PullRequestReviewComment:
		if err := errors.Join(need(p.PullRequest != nil, "pull_request"), need(p.Comment != nil, "comment")); err != nil {
			return nil, err
		}
		e.PR, e.Comment = prFrom(p.PullRequest), reviewCommentFrom(p.Comment)
	}
	if p.Label != nil && (e.Issue != nil || e.PR != nil) {
		e.Label = p.Label.Name
	}
	return e, nil
}

func issueFrom(p *issuePayload) *Issue {
	return &Issue{Number: p.Number, Title: p.Title, Body: p.Body, IsPR: p.PullRequest != nil}
}

func prFrom(p *pullPayload) *PR {
	// A deleted fork leaves head.repo null.
	var head, base string
	if p.Head.Repo != nil {
		head = p.Head.Repo.FullName
	}
	if p.Base.Repo != nil {
		base = p.Base.Repo.FullName
	}
	return &PR{
		Number:   p.Number,
		Title:    p.Title,
		Body:     p.Body,
		HeadRef:  p.Head.Ref,
		BaseRef:  p.Base.Ref,
		HeadSHA:  p.Head.SHA,
		HeadRepo: head,
		Fork:     base == "" || ForkHead(head, base),
	}
}

func commentFrom(p *commentPayload) *Comment {
	return &Comment{ID: p.ID, Body: p.Body}
}

// reviewCommentFrom reads a review comment: where it sits in the diff, and its thread.
func reviewCommentFrom(p *commentPayload) *Comment {
	c := &Comment{ID: p.ID, Body: p.Body, Thread: p.InReplyTo, Path: p.Path, DiffHunk: p.DiffHunk}
	if c.Thread == 0 {
		c.Thread = p.ID
	}
	switch {
	case p.Line != nil:
		c.Line = *p.Line
	case p.OriginalLine != nil:
		c.Line = *p.OriginalLine
	}
	return c
}

// Number is the number of the issue or pull request the event is about; 0 when it is about
// none, or e is nil.
func (e *Event) Number() int {
	switch {
	case e == nil:
		return 0
	case e.Issue != nil:
		return e.Issue.Number
	case e.PR != nil:
		return e.PR.Number
	}
	return 0
}

// PRNumber is the number of the pull request the event is about: a pull request event's, or
// the one an issue comment or review comment was made on; 0 when it is about none.
func (e *Event) PRNumber() int {
	switch {
	case e.PR != nil:
		return e.PR.Number
	case e.Issue != nil && e.Issue.IsPR:
		return e.Issue.Number
	}
	return 0
}

// number formats an issue or pull request number for a prompt.
func number(n int) string { return strconv.Itoa(n) }

// Subject is what an event is about, which decides the mode that answers it.
type Subject string

// The subjects of events.
const (
	// SubjectIssue is an issue: an issues event, or a comment on an issue.
	SubjectIssue Subject = "an issue"
	// SubjectPullRequest is a pull request: a pull_request or pull_request_target event, a
	// comment on a pull request or on a line of its diff.
	SubjectPullRequest Subject = "a pull request"
	// SubjectWorkflow is the workflow itself: a schedule, workflow_dispatch or push.
	SubjectWorkflow Subject = "the workflow"
)

// Subject says what e is about; "" for an event of a kind this package does not know.
func (e *Event) Subject() Subject {
	switch {
	case StartedByWorkflow(e.Name):
		return SubjectWorkflow
	case e.PR != nil, e.Issue != nil && e.Issue.IsPR:
		return SubjectPullRequest
	case e.Issue != nil:
		return SubjectIssue
	}
	return ""
}

// About reports whether e is about one of subjects. Any event is when there are none, and so is
// one of a kind this package does not know, which Decide refuses.
func (e *Event) About(subjects []Subject) bool {
	s := e.Subject()
	return s == "" || len(subjects) == 0 || slices.Contains(subjects, s)
}

// SubjectNames lists subjects as a sentence does: "an issue or a pull request".
func SubjectNames(subjects []Subject) string {
	names := make([]string, len(subjects))
	for i, s := range subjects {
		names[i] = string(s)
	}
	return strings.Join(names, " or ")
}
