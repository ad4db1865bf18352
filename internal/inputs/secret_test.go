package inputs

import (
	"strings"
	"testing"
)

// secretMark starts every secret the tests below hide in bad lines. It cannot start a name, so
// nothing that is rightly named in a message (a key) can begin with it.
const secretMark = "-s3cr3t-"

// envFileShapes are lines of an env file, or of KEY=VALUE lines, with %s where a secret stands;
// each is wrong in a way that is reported, or right.
var envFileShapes = []string{
	"ANTHROPIC_API_KEY: %s",
	"ANTHROPIC_API_KEY:%s=x",
	"ANTHROPIC_API_KEY %s",
	"%s",
	"%s=1",
	"export %s",
	`KEY="%s`,
	`KEY='%s`,
	`KEY="x" %s`,
	`KEY='x'%s`,
	`KEY="%s" trailing`,
	"KEY=%s",
}

// mapShapes are prompt-args or build-args texts with %s where a secret value stands: KEY=VALUE
// lines, YAML and JSON. A YAML key is a key, never a value, so no shape puts the secret there.
var mapShapes = []string{
	"A=1\n%s",
	"A=1\n%s=1",
	"A=1\nB: %s",
	"KEY: %s",
	`KEY: "%s`,
	`KEY: '%s`,
	"KEY: *%s",
	"KEY: [!!int %s]",
	"KEY: {a: !!float %s}",
	"KEY: [*%s]",
	"KEY: &a [1]\nB: *%s",
	`{"KEY": "%s"`,
	`{"KEY": %s`,
	"KEY:\n  - %s\n - x",
	"KEY: %s\n\tB: 1",
}

// checkHidden fails the test when a message shows any part of a secret.
func checkHidden(t *testing.T, text string, messages []string) {
	t.Helper()
	for _, m := range messages {
		if strings.Contains(m, strings.TrimPrefix(secretMark, "-")) {
			t.Errorf("a message shows the secret:\n%s\nfor the text:\n%s", m, text)
		}
	}
}

func errorMessages(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range Unjoin(err) {
		out = append(out, e.Error())
	}
	return out
}

// FuzzBadLinesHideSecrets: whatever the rest of a secret holds (quotes, colons, anchors,
// backquotes, newlines), no message about a bad env-file, prompt-args or build-args line shows
// it, in any of the shapes people get wrong; each message still names the line.
func FuzzBadLinesHideSecrets(f *testing.F) {
	for _, s := range []string{
		"", "ant-api03-AbC_dEf", "c2VjcmV0==", `a"b`, "a'b", "a`b", "a: b", "a #b", "*a", "&a",
		"!!str a", "a\nb", "a\\", "{a}", "[a", "a\tb", "\x00", "a\rb", "ü", "a=b", "'", `"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		secret := secretMark + rest
		for _, shape := range envFileShapes {
			text := strings.ReplaceAll(shape, "%s", secret) + "\n"
			_, err := ParseEnvFile([]byte(text))
			msgs := errorMessages(err)
			checkHidden(t, text, msgs)
			for _, m := range msgs {
				if !strings.HasPrefix(m, "line ") {
					t.Errorf("env-file message %q does not name its line", m)
				}
			}
		}
		for _, shape := range mapShapes {
			text := strings.ReplaceAll(shape, "%s", secret)
			_, problems := parseMap(text, nil)
			checkHidden(t, text, problems)
		}
	})
}

// TestLoad_secretsNeverInProblems: through Load, as a run reports them, problems with the
// env-file, build-args and prompt-args name the key and line and leave the value out.
func TestLoad_secretsNeverInProblems(t *testing.T) {
	t.Parallel()
	const secret = "sk-ant-api03-s3cr3t"
	tests := []struct {
		name  string
		raw   Raw
		file  string // the env file's content
		input string
		want  string
	}{
		{"env_file_yaml_habit", with(InputEnvFile, "bad.env"), "GOOD=1\nANTHROPIC_API_KEY: " + secret + "\n", InputEnvFile,
			"line 2: ANTHROPIC_API_KEY is followed by a colon, not =; write ANTHROPIC_API_KEY=value"},
		{"env_file_bare_value", with(InputEnvFile, "bad.env"), secret + "\n", InputEnvFile, "line 1: not KEY=VALUE"},
		{"env_file_after_quote", with(InputEnvFile, "bad.env"), `TOKEN="x" ` + secret + "\n", InputEnvFile, "line 1: value of TOKEN has text after its closing quote"},
		{"build_args_line", with(InputBuildArgs, "A=1\n"+secret), "", InputBuildArgs, "line 2 is not KEY=VALUE"},
		{"build_args_alias", with(InputBuildArgs, "NPM_TOKEN: *"+secret), "", InputBuildArgs, "the YAML is wrong (the error quotes the text, which is not shown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := load(tt.raw, testEnv(map[string]string{"bad.env": tt.file, ".sandcastle/Dockerfile": "FROM scratch\n"}))
			checkOneProblem(t, err, tt.input, tt.want)
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the problems show the secret:\n%v", err)
			}
		})
	}
}
