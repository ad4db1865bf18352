package event

// PromptArgs returns the event's built-in prompt arguments, each passed through Sanitize:
// ISSUE_NUMBER, ISSUE_TITLE, ISSUE_BODY (issues and issue comments), PR_NUMBER, PR_TITLE,
// PR_BODY (pull request events and comments on pull requests), HEAD_REF, BASE_REF (when the
// payload carries the pull request's branches), COMMENT_BODY, REVIEW_PATH, REVIEW_LINE and
// DIFF_HUNK (a review comment's file, line and the diff hunk it sits in; REVIEW_LINE is absent
// for a comment on a whole file), ACTOR and REPOSITORY. A key is
// present only when the event has that thing, so a template that needs an issue fails to
// resolve on a push instead of running with an empty number; an issue whose body is empty still
// has ISSUE_BODY "".
func (e *Event) PromptArgs() map[string]string {
	args := map[string]string{}
	set := func(k, v string) { args[k] = Sanitize(v) }

	if is := e.Issue; is != nil {
		set("ISSUE_NUMBER", number(is.Number))
		set("ISSUE_TITLE", is.Title)
		set("ISSUE_BODY", is.Body)
	}
	switch {
	case e.PR != nil:
		set("PR_NUMBER", number(e.PR.Number))
		set("PR_TITLE", e.PR.Title)
		set("PR_BODY", e.PR.Body)
		set("HEAD_REF", e.PR.HeadRef)
		set("BASE_REF", e.PR.BaseRef)
	case e.Issue != nil && e.Issue.IsPR:
		// A comment on a pull request carries it as an issue: no branches. A caller that
		// fetches the pull request can set e.PR to add them.
		set("PR_NUMBER", number(e.Issue.Number))
		set("PR_TITLE", e.Issue.Title)
		set("PR_BODY", e.Issue.Body)
	}
	if c := e.Comment; c != nil {
		set("COMMENT_BODY", c.Body)
		if e.Name == PullRequestReviewComment {
			set("REVIEW_PATH", c.Path)
			set("DIFF_HUNK", c.DiffHunk)
			if c.Line > 0 {
				set("REVIEW_LINE", number(c.Line))
			}
		}
	}
	if e.Actor != "" {
		set("ACTOR", e.Actor)
	}
	if e.Repository != "" {
		set("REPOSITORY", e.Repository)
	}
	return args
}
