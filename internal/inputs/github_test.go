package inputs

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestDefaultTriggerPhrasesDocumented: the input's description, and so action.yml and the
// README, names the defaults.
func TestDefaultTriggerPhrasesDocumented(t *testing.T) {
	t.Parallel()
	d, _ := Lookup(InputTriggerPhrases)
	for _, p := range defaultTriggerPhrases() {
		if !strings.Contains(d.Description, p) {
			t.Errorf("trigger-phrases description does not name the default %q", p)
		}
	}
}

// TestLoad_githubValues: each row declares the GitHubConfig its inputs make, as the fields that
// differ from the defaults'.
func TestLoad_githubValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  Raw
		want func(g *GitHubConfig) // the defaults' GitHubConfig, made into the wanted one
	}{
		{"open_pr_with_branch_strategy_head_and_lease", with(InputOpenPR, "true", InputPush, "lease"), func(g *GitHubConfig) { g.OpenPR, g.Push = true, PushLease }},
		{"open_pr_with_force_push", with(InputOpenPR, "yes", InputPush, "force", InputBranchStrategy, "branch", InputBranch, "agent/fix"), func(g *GitHubConfig) {
			g.OpenPR, g.Push = true, PushForce
		}},
		{"push_none_without_open_pr", with(InputPush, "none"), func(g *GitHubConfig) { g.Push = PushNone }},
		{"pr_draft_default_value_without_open_pr_is_fine", with(InputPRDraft, "true"), func(g *GitHubConfig) { g.PRDraft = true }},
		{"pr_body_is_kept_verbatim", with(InputOpenPR, "true", InputPush, "lease", InputPRBody, "  indented code\n\n- {{COMMITS}}\n"), func(g *GitHubConfig) {
			g.OpenPR, g.Push, g.PRBody = true, PushLease, "  indented code\n\n- {{COMMITS}}\n"
		}},
		{"token_is_trimmed", with(InputGitHubToken, "\tghp_abc123\r\n"), func(g *GitHubConfig) { g.Token = "ghp_abc123" }},
		{"blank_trigger_phrases_take_the_defaults", with(InputTriggerPhrases, "\n  \n"), func(g *GitHubConfig) { g.TriggerPhrases = []string{"/sandcastle", "@sandcastle"} }},
		{"trigger_phrases_drop_repeats_in_any_case", with(InputTriggerPhrases, " @Bot please \n@bot PLEASE\n/go\n"), func(g *GitHubConfig) {
			g.TriggerPhrases = []string{"@Bot please", "/go"}
		}},
		{"trigger_phrase_of_100_characters", with(InputTriggerPhrases, strings.Repeat("é", 100)), func(g *GitHubConfig) {
			g.TriggerPhrases = []string{strings.Repeat("é", 100)}
		}},
		{"labels_are_trimmed", with(InputTriggerLabel, "  sandcastle ", InputInProgressLabel, "🏗 working", InputBlockedLabel, strings.Repeat("b", 50)), func(g *GitHubConfig) {
			g.TriggerLabel, g.InProgressLabel, g.BlockedLabel = "sandcastle", "🏗 working", strings.Repeat("b", 50)
		}},
		{"logins_by_line_and_comma_without_repeats", with(
			InputAllowedUsers, "octocat,,mona\n Octocat \n"+strings.Repeat("a", 39)+"\nold-name-\n",
			InputAllowedBots, "dependabot[bot]\nrenovate, my-app[bot]\nDependabot[bot]\n",
		), func(g *GitHubConfig) {
			g.AllowedUsers = []string{"octocat", "mona", strings.Repeat("a", 39), "old-name-"}
			g.AllowedBots = []string{"dependabot[bot]", "renovate", "my-app[bot]"}
		}},
	}
	defaults := loadOK(t, with(), testEnv(nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := clone(t, defaults).GitHub
			tt.want(&want)
			if got := loadOK(t, tt.raw, testEnv(nil)).GitHub; !reflect.DeepEqual(got, want) {
				t.Errorf("GitHubConfig =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestLoad_githubBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raw   Raw
		input string // the input the problem must name
		valid string // text of the message saying what is valid
	}{
		{"github_token_with_space", with(InputGitHubToken, "ghs_abc def"), InputGitHubToken, "give the token alone, on one line"},
		{"github_token_on_two_lines", with(InputGitHubToken, "ghs_abc\nghs_def"), InputGitHubToken, "give the token alone, on one line"},
		{"push_unknown", with(InputPush, "always"), InputPush, `"always" is not valid; use one of: auto, none, force, lease`},
		{"open_pr_maybe", with(InputOpenPR, "maybe"), InputOpenPR, "use true or false"},
		{"open_pr_maybe_says_nothing_of_pr_title", with(InputOpenPR, "maybe", InputPRTitle, "Fix it"), InputOpenPR, "use true or false"},
		{"open_pr_with_push_none", with(InputOpenPR, "true", InputPush, "none"), InputOpenPR, "a pull request needs the branch on GitHub; set push to auto, force or lease, or remove open-pr"},
		{"open_pr_with_head_and_push_auto", with(InputOpenPR, "true"), InputOpenPR, "with branch-strategy head no branch would reach GitHub for a pull request; set push to lease"},
		{"open_pr_with_merge_to_head", with(InputOpenPR, "true", InputBranchStrategy, "merge-to-head"), InputOpenPR, "no branch is left for a pull request; use branch-strategy branch, or remove open-pr"},
		{"pr_draft_maybe", with(InputOpenPR, "true", InputPush, "lease", InputPRDraft, "maybe"), InputPRDraft, "use true or false"},
		{"pr_draft_false_without_open_pr", with(InputPRDraft, "false"), InputPRDraft, "is used only with open-pr: true; set open-pr: true or remove pr-draft"},
		{"pr_base_without_open_pr", with(InputPRBase, "main"), InputPRBase, "is used only with open-pr: true; set open-pr: true or remove pr-base"},
		{"pr_base_with_dot_dot", with(InputOpenPR, "true", InputPush, "lease", InputPRBase, "main..dev"), InputPRBase, `contains ".."; give the name of the branch the pull request merges into`},
		{"pr_base_starting_with_dash", with(InputOpenPR, "true", InputPush, "lease", InputPRBase, "-f"), InputPRBase, `starts with "-"`},
		{"pr_title_without_open_pr", with(InputPRTitle, "Fix #{{ISSUE_NUMBER}}"), InputPRTitle, "is used only with open-pr: true; set open-pr: true or remove pr-title"},
		{"pr_title_spans_lines", with(InputOpenPR, "true", InputPush, "lease", InputPRTitle, "Fix\nit"), InputPRTitle, "give a single line"},
		{"pr_body_without_open_pr", with(InputPRBody, "Closes #1"), InputPRBody, "is used only with open-pr: true; set open-pr: true or remove pr-body"},
		{"progress_comment_maybe", with(InputProgressComment, "maybe"), InputProgressComment, "use true or false"},
		{"trigger_phrase_too_long", with(InputTriggerPhrases, "/go\n"+strings.Repeat("x", 101)), InputTriggerPhrases, "is 101 characters long; use at most 100"},
		{"trigger_phrase_with_carriage_return", with(InputTriggerPhrases, "/go\rnow"), InputTriggerPhrases, `"/go\rnow" holds a line break; give one phrase per line`},
		{"trigger_label_spans_lines", with(InputTriggerLabel, "a\nb"), InputTriggerLabel, "give a single line"},
		{"trigger_label_with_comma", with(InputTriggerLabel, "agent,go"), InputTriggerLabel, `"agent,go" holds a comma; give one label name without commas`},
		{"trigger_label_too_long", with(InputTriggerLabel, strings.Repeat("l", 51)), InputTriggerLabel, "is 51 characters long; GitHub labels have at most 50"},
		{"in_progress_label_too_long", with(InputInProgressLabel, strings.Repeat("l", 51)), InputInProgressLabel, "GitHub labels have at most 50"},
		{"blocked_label_with_comma", with(InputBlockedLabel, "a,b"), InputBlockedLabel, "holds a comma"},
		{"in_progress_label_is_trigger_label", with(InputTriggerLabel, "agent", InputInProgressLabel, "Agent"), InputInProgressLabel, `"Agent" is also trigger-label; use a different label`},
		{"blocked_label_is_trigger_label", with(InputTriggerLabel, "agent", InputBlockedLabel, "agent"), InputBlockedLabel, "every failed run would start another; use a different label"},
		{"blocked_label_is_in_progress_label", with(InputInProgressLabel, "busy", InputBlockedLabel, "BUSY"), InputBlockedLabel, `"BUSY" is also in-progress-label; use a different label`},
		{"allowed_users_with_space", with(InputAllowedUsers, "octocat\nmona lisa"), InputAllowedUsers, `"mona lisa" is not a GitHub login; use letters, digits and -, up to 39`},
		{"allowed_users_too_long", with(InputAllowedUsers, strings.Repeat("a", 40)), InputAllowedUsers, "is not a GitHub login"},
		{"allowed_users_leading_hyphen", with(InputAllowedUsers, "-octocat"), InputAllowedUsers, `"-octocat" is not a GitHub login; use letters, digits and -, up to 39, not starting with -`},
		{"allowed_users_with_at", with(InputAllowedUsers, "@octocat"), InputAllowedUsers, `"@octocat" is not a GitHub login`},
		{"allowed_users_bot", with(InputAllowedUsers, "octocat, dependabot[bot]"), InputAllowedUsers, `"dependabot[bot]" is a bot; list it in allowed-bots instead`},
		{"allowed_bots_underscore", with(InputAllowedBots, "my_bot"), InputAllowedBots, `"my_bot" is not a bot's login; use letters, digits and -, up to 39, optionally followed by [bot]`},
		{"allowed_bots_other_suffix", with(InputAllowedBots, "renovate[app]"), InputAllowedBots, `"renovate[app]" is not a bot's login`},
		{"allowed_bots_star_and_junk", with(InputAllowedBots, "*, re novate"), InputAllowedBots, `"re novate" is not a bot's login`},
		{"refuse_if_open_pr_maybe", with(InputRefuseIfOpenPR, "maybe"), InputRefuseIfOpenPR, "use true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := load(tt.raw, testEnv(nil))
			checkOneProblem(t, err, tt.input, tt.valid)
		})
	}
}

// TestLoad_githubTokenNeverInMessages: a malformed token is still a secret, so the problem
// names the input without echoing any part of the value.
func TestLoad_githubTokenNeverInMessages(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"ghs_SECRETPART other", "ghs_SECRETPART\nother", "ghs_SECRETPART\x00other"} {
		_, err := load(with(InputGitHubToken, token), testEnv(nil))
		if err == nil {
			t.Fatalf("load(%q) succeeded, want a problem", token)
		}
		for _, part := range []string{"SECRETPART", "other", "ghs_"} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("load(%q) error %q shows %q of the token", token, err, part)
			}
		}
	}
}

func TestLoad_openPRProblemsTogether(t *testing.T) {
	t.Parallel()
	_, err := load(with(InputOpenPR, "true", InputPush, "none", InputBranchStrategy, "merge-to-head"), testEnv(nil))
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
	}
	if want := []string{InputOpenPR, InputOpenPR}; !slices.Equal(got, want) {
		t.Errorf("problems name %q, want %q (push none and merge-to-head, each said once)\n%v", got, want, err)
	}
}
