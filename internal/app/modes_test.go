package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The modes through Main with every real part but the agent CLI (testkit's fake claude on the
// host): each is given only mode: and what the runner sets.

// pwned lists the pwned-* files that hostileTitle makes where a shell runs it, anywhere under
// dir.
func pwned(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "pwned") {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// issuePayload is an issues or issue_comment payload about issue 42 by sender; onPR makes the
// issue a pull request, as GitHub sends a comment on one.
func issuePayload(sender, title string, onPR bool, fields map[string]any) map[string]any {
	issue := map[string]any{"number": 42, "title": title, "body": "It crashes on start.", "state": "open", "user": map[string]any{"login": "reporter"}}
	if onPR {
		issue["pull_request"] = map[string]any{"url": "https://api.example/pulls/42"}
	}
	p := map[string]any{
		"issue":      issue,
		"sender":     map[string]any{"login": sender, "type": "User"},
		"repository": map[string]any{"full_name": ghRepo, "name": "widgets", "owner": map[string]any{"login": "octo"}},
	}
	for k, v := range fields {
		p[k] = v
	}
	return p
}

// TestImplementMode: mode implement alone answers a label or a comment on an issue with a
// branch named after the issue, pushed, a draft pull request that closes it, the progress
// comment and the label moves; the stranger's title is data throughout. It leaves a comment on
// a pull request, and another label, to others.
func TestImplementMode(t *testing.T) {
	tests := []struct {
		name    string
		event   string
		onPR    bool
		fields  map[string]any
		skipped bool
	}{
		{name: "label", event: "issues", fields: map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle"}}},
		{name: "comment", event: "issue_comment", fields: map[string]any{"action": "created", "comment": map[string]any{"body": "/sandcastle please"}}},
		{name: "comment_on_a_pull_request", event: "issue_comment", onPR: true, skipped: true,
			fields: map[string]any{"action": "created", "comment": map[string]any{"body": "/sandcastle please"}}},
		{name: "another_label", event: "issues", skipped: true, fields: map[string]any{"action": "labeled", "label": map[string]any{"name": "bug"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			steps := []models.Step{commitBash("fix.txt", "fixed", "Fix the crash"), models.Text("Fixed the crash on start. " + signal)}
			if tt.skipped {
				steps = nil // a claude that fails the test if it runs
			}
			a := newFakeAction(t, steps...)
			g := withGitHub(t, a, ghToken)
			g.api.SetPermission("maintainer", "write")
			g.api.SetLabels(42, "sandcastle", "bug")
			title := "Crash: " + hostileTitle + " ../.. @{u} -rf"
			g.event(t, tt.event, issuePayload("maintainer", title, tt.onPR, tt.fields))
			a.input("mode", "implement")
			before := stateOf(t, a.env, a.dir)

			inv, out := a.runWant(0)
			branch := inputs.IssueBranch(42, title)
			if tt.skipped {
				if out["status"] != "skipped" || len(a.claude.Calls()) != 0 || len(g.api.PRs()) != 0 || len(g.api.Comments(42)) != 0 || g.remoteSHA(t, branch) != "" {
					t.Errorf("outputs %v; want a skipped run that did nothing", out)
				}
				if got := stateOf(t, a.env, a.dir); got != before {
					t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", before, got)
				}
				return
			}
			if want := "sandcastle/issue-42-crash-x-touch-pwned-dq-echo-y-touch"; branch != want {
				t.Fatalf("branch %q, want %q", branch, want)
			}
			if out["status"] != "complete" || out["branch"] != branch || out["pushed"] != "true" || g.remoteSHA(t, branch) != out["head-sha"] {
				t.Errorf("outputs %v; want complete, %s pushed", out, branch)
			}
			prs := g.api.PRs()
			if len(prs) != 1 || prs[0].Head != "octo:"+branch || prs[0].Base != "main" || !prs[0].Draft || !strings.Contains(prs[0].Body, "Closes #42") || !strings.Contains(prs[0].Body, "Fixed the crash on start.") {
				t.Fatalf("pull requests %+v; want a draft from %s into main that closes #42", prs, branch)
			}
			if comments := g.api.Comments(42); len(comments) != 1 || !strings.Contains(comments[0].Body, "finished: complete") || !strings.Contains(comments[0].Body, prs[0].URL) {
				t.Errorf("comments %+v; want the progress comment, finished, naming the pull request", comments)
			}
			if got := g.api.Labels(42); !slices.Equal(got, []string{"bug"}) {
				t.Errorf("labels %q; want the trigger label off and in-progress added and removed", got)
			}
			calls := a.claude.Calls()
			if len(calls) != 1 || !strings.Contains(calls[0].Prompt, "# Issue #42: "+title) || !strings.Contains(calls[0].Prompt, "It crashes on start.") || !strings.Contains(calls[0].Prompt, "initial") {
				t.Errorf("calls %+v; want one, with the built-in prompt, the issue in it as written and the recent commits", calls)
			}
			if found := pwned(t, filepath.Dir(a.dir)); len(found) > 0 {
				t.Errorf("the issue's title ran as shell: %q", found)
			}
			checkNoToken(t, a, inv)
		})
	}
}

// TestPRAndReviewShareComments: with both modes installed, a comment on a pull request starts
// the one it asks for, and the other skips it quietly: "/sandcastle review" is review's, not
// pr's, and a plain "/sandcastle" request is pr's, not review's.
func TestPRAndReviewShareComments(t *testing.T) {
	for _, tt := range []struct{ mode, body string }{
		{inputs.ModePR, "/sandcastle review, please"},
		{inputs.ModeReview, "/sandcastle rename the greeting"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			a := newFakeAction(t) // a claude with no script: it fails the run if it runs
			g := withGitHub(t, a, ghToken)
			g.openPR(t, false, map[string]string{"hello.txt": "hello\n"})
			c := g.commentOnPR(t, tt.body)
			a.input("mode", tt.mode)
			_, out := a.runWant(0)
			if out["status"] != "skipped" || !strings.Contains(out["refusal-reason"], "no trigger phrase") {
				t.Errorf("outputs %v; want skipped for want of a trigger phrase", out)
			}
			if comments := g.api.Comments(prNumber); len(comments) != 1 || len(g.api.Reactions(c.ID)) != 0 {
				t.Errorf("comments %+v, reactions %q; want the maintainer's comment alone, unanswered", comments, g.api.Reactions(c.ID))
			}
		})
	}
}

// TestModesSkipWhatTheyDoNotAnswer: the workflows of several modes may share their triggers;
// each mode skips an event about what it does not answer quietly, before it needs a branch or
// a prompt, and asks GitHub nothing; sandcastle prompt says there is no prompt for it.
func TestModesSkipWhatTheyDoNotAnswer(t *testing.T) {
	opened := map[string]any{"action": "opened", "number": 5,
		"pull_request": map[string]any{"number": 5, "title": "Add it", "body": "",
			"head": map[string]any{"ref": "feature", "sha": "abc", "repo": map[string]any{"full_name": ghRepo}},
			"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": ghRepo}}},
		"sender": map[string]any{"login": "maintainer", "type": "User"}, "repository": map[string]any{"full_name": ghRepo}}
	labelled := issuePayload("maintainer", "Crash", false, map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle"}})
	for _, tt := range []struct {
		mode, event string
		payload     map[string]any
		about       string
	}{
		{inputs.ModeImplement, "schedule", map[string]any{"repository": map[string]any{"full_name": ghRepo}}, "the workflow"},
		{inputs.ModeImplement, "pull_request", opened, "a pull request"},
		{inputs.ModeReview, "issues", labelled, "an issue"},
		{inputs.ModeTriage, "issues", labelled, "an issue"},
	} {
		t.Run(tt.mode+"_on_"+tt.event, func(t *testing.T) {
			t.Parallel()
			a := newFakeAction(t) // a claude with no script: it fails the run if it runs
			g := withGitHub(t, a, ghToken)
			g.event(t, tt.event, tt.payload)
			a.input("mode", tt.mode)
			_, out := a.runWant(0)
			if out["status"] != "skipped" || !strings.Contains(out["refusal-reason"], "is about "+tt.about+", and this run answers") {
				t.Errorf("outputs %v; want skipped: about %s", out, tt.about)
			}
			if got := g.api.Requests(); len(got) != 0 {
				t.Errorf("GitHub was asked %q; want nothing", got)
			}
			a.env["GITHUB_TOKEN"] = ghToken
			inv := runMain(t, a.env, a.dir, "prompt", "--mode", tt.mode, "--sandbox", "none")
			if inv.code != exitFailed || !strings.Contains(inv.stderr, "mode "+tt.mode+" answers ") || !strings.Contains(inv.stderr, "skips this event, which is about "+tt.about) {
				t.Errorf("sandcastle prompt: exit %d\n%s\nwant 1 saying the event is skipped", inv.code, inv.output())
			}
		})
	}
}

// The secrets a run is given, which an agent may read and write into its answer: the agent's
// API key and a value of the env file (github-token, ghToken, it never holds).
const (
	gatedAPIKey  = "sk-ant-api03-GatedKey0123456789abcdef"
	gatedEnvFile = "envfile-s3cret-value-0123456789"
)

// hostileAnswer is agent text with every secret of the run in it and mentions and closing
// references where GitHub reads them: first on a line, in HTML blocks and inline, behind
// character references, after another @, an autolinked issue URL, and a marker of the action's
// at its end.
const hostileAnswer = "Done: " + ghToken + " " + gatedAPIKey + " " + gatedEnvFile + " @octocat Closes #7\n" +
	"@hubot first. Fixes <https://github.com/octo/widgets/issues/9>\n\n" +
	"<details>@octocat Fixes #9</details>\n\n<div>\n@hubot closes #42\n</div>\n\n" +
	"&#64;octocat Closes&#32;#7 @@hubot <b>@octocat</b>\n\n<!-- sandcastle:pr:main -->"

// hostileSubject is a commit subject with a secret, a mention and a closing reference.
const hostileSubject = "Fix @octocat, closes #8 <b>@hubot</b> " + gatedAPIKey

// TestEveryWriteGated: in every mode that writes to GitHub, whatever the agent writes (its
// answer, its commits, its review and triage output) with the run's secrets in it and mentions
// and closing references hidden every way, each request body the run sends GitHub, on any route
// (REST and GraphQL), holds no secret and, rendered as GitHub renders it, no live mention or
// closing reference but an implementing pull request's own "Closes #42".
func TestEveryWriteGated(t *testing.T) {
	jsonText := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	labelled := issuePayload("maintainer", "Crash @octocat fixes #3 <b>@hubot</b>", false,
		map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle"}})
	for _, tt := range []struct {
		mode  string
		steps []models.Step
		setUp func(t *testing.T, a *action, g *github)
		want  []string // requests the run must have written, "METHOD path"
	}{
		{mode: inputs.ModeImplement,
			steps: []models.Step{commitBash("fix.txt", "fixed", hostileSubject), models.Text(hostileAnswer + " " + signal)},
			setUp: func(t *testing.T, a *action, g *github) {
				g.api.SetLabels(42, "sandcastle")
				g.event(t, "issues", labelled)
			},
			want: []string{"POST /repos/octo/widgets/issues/42/comments", "POST /repos/octo/widgets/pulls"}},
		{mode: inputs.ModePR,
			steps: []models.Step{commitBash("work.txt", "agent", hostileSubject), models.Text(hostileAnswer + " " + signal)},
			setUp: func(t *testing.T, a *action, g *github) {
				g.openPR(t, false, map[string]string{"hello.txt": "hello\n"})
				g.commentOnPR(t, "/sandcastle rename it, @octocat")
			},
			want: []string{"POST /repos/octo/widgets/issues/5/comments"}},
		{mode: inputs.ModeReview,
			steps: []models.Step{models.Text("<result>" + jsonText(map[string]any{"summary": hostileAnswer, "comments": []map[string]any{
				{"path": "main.go", "line": 2, "body": hostileAnswer, "suggestion": hostileSubject},
				{"path": "README.md", "line": 40, "body": hostileAnswer}}}) + "</result> " + signal)},
			setUp: func(t *testing.T, a *action, g *github) {
				g.reviewablePR(t, "Greet @octocat", "Fixes #3")
			},
			want: []string{"POST /repos/octo/widgets/pulls/5/reviews"}},
		{mode: inputs.ModeTriage,
			steps: []models.Step{models.Text("<result>" + jsonText(map[string]any{"issues": []map[string]any{
				{"issue": 1, "add_labels": []string{"bug"}, "comment": hostileAnswer}}}) + "</result> " + signal)},
			setUp: func(t *testing.T, a *action, g *github) {
				g.api.AddIssue(githubfake.Issue{Number: 1, Title: "Crash @octocat", Body: "Fixes #3"})
				g.event(t, "schedule", map[string]any{"schedule": "0 * * * *", "repository": map[string]any{"full_name": ghRepo}})
			},
			want: []string{"POST /repos/octo/widgets/issues/1/comments", "POST /repos/octo/widgets/issues/1/labels"}},
		{mode: inputs.ModeRun,
			steps: []models.Step{commitBash("fix.txt", "fixed", hostileSubject), models.Text(hostileAnswer + " " + signal)},
			setUp: func(t *testing.T, a *action, g *github) {
				g.api.SetLabels(42, "sandcastle")
				g.event(t, "issues", labelled)
				writeFile(t, filepath.Join(a.dir, ".sandcastle", "prompt.md"), "Work on {{ISSUE_TITLE}} for {{WHO}}, then print "+signal)
				a.input("prompt-file", ".sandcastle/prompt.md")
				a.input("prompt-args", "WHO="+hostileSubject)
				a.input("branch-strategy", "branch")
				a.input("branch", "agent/work")
				a.input("open-pr", "true")
				a.input("progress-comment", "true")
				a.input("pr-title", "{{ISSUE_TITLE}} by {{ACTOR}}: {{SUMMARY}}")
				a.input("pr-body", "Closes #{{ISSUE_NUMBER}}, for @octocat.\n\n{{ISSUE_TITLE}}\n\n{{COMMITS}}\n\n{{SUMMARY}}")
			},
			want: []string{"POST /repos/octo/widgets/issues/42/comments", "POST /repos/octo/widgets/pulls"}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			a := newFakeAction(t, tt.steps...)
			g := withGitHub(t, a, ghToken)
			g.api.SetPermission("maintainer", "write")
			a.input("mode", tt.mode)
			tt.setUp(t, a, g)
			// After setUp, which may check out the pull request's branch in the checkout.
			writeFile(t, filepath.Join(a.dir, ".sandcastle", ".env"), "GATED_VALUE="+gatedEnvFile+"\n")
			a.input("env-file", ".sandcastle/.env")
			a.env["ANTHROPIC_API_KEY"] = gatedAPIKey
			inv, _ := a.runWant(0)

			for line := range strings.Lines(inv.output()) {
				for _, secret := range []string{ghToken, gatedAPIKey, gatedEnvFile} {
					if part := secret[:len(secret)-4]; strings.Contains(line, part) && line != "::add-mask::"+secret+"\n" {
						t.Errorf("the run's log holds %q, most of a secret: %q", part, line)
					}
				}
			}
			for _, want := range tt.want {
				if !slices.Contains(g.api.Requests(), want) {
					t.Errorf("requests %q; want %s", g.api.Requests(), want)
				}
			}
			for _, w := range g.api.Writes() {
				var body any
				if json.Unmarshal([]byte(w), &body) != nil {
					continue // a body-less write (a label or a reaction taken off)
				}
				fields, _ := body.(map[string]any)
				isPR := fields["title"] != nil // a pull request's, created or edited
				for _, s := range jsonStrings(body) {
					for _, secret := range []string{ghToken, gatedAPIKey, gatedEnvFile} {
						if strings.Contains(s, secret) {
							t.Errorf("a write holds a secret: %q", s)
						}
					}
					if strings.Contains(s, "sandcastle:pr:main") {
						t.Errorf("a write holds the agent's marker: %q", s)
					}
					for _, live := range testkit.LiveReferences(s) {
						// An implementing pull request closes the run's own issue.
						if !isPR || tt.mode == inputs.ModePR || !strings.HasSuffix(live, " #42") {
							t.Errorf("a write shows %q live: %q", live, s)
						}
					}
				}
			}
		})
	}
}

// jsonStrings are the strings of a decoded JSON value, at any depth.
func jsonStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	}
	return nil
}
