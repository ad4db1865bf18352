package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRewriteCwdFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, from string
		changed    int // lines that must change
	}{
		{"claude-code-session.jsonl", "/home/agent/workspace", 5},
		// Both session_meta.payload.cwd and turn_context.payload.cwd (the reference missed the second).
		{"codex-rollout.jsonl", "/home/agent/workspace", 2},
		{"pi-sample-resumed-session.jsonl", "/home/mattpocock/repos/ai/sandcastle", 1},
	}
	const to = `/srv/ci/a "b"/<promise>&c`
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".jsonl"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := RewriteCwd(data, tt.from, to)
			if bytes.Contains(got, []byte(`"cwd":"`+tt.from+`"`)) {
				t.Errorf("a cwd of %s is left", tt.from)
			}
			// Escapes as the CLIs write them: quotes escaped, < > & not HTML-escaped.
			wantValue := `"cwd":"/srv/ci/a \"b\"/<promise>&c"`
			if n := bytes.Count(got, []byte(wantValue)); n != tt.changed {
				t.Errorf("%d cwd fields rewritten, want %d", n, tt.changed)
			}
			// Every other byte is kept: undoing the rewrite gives the file back exactly.
			if back := RewriteCwd(got, to, tt.from); !bytes.Equal(back, data) {
				t.Errorf("rewriting back does not restore the file byte for byte")
			}
			oldLines, newLines := bytes.Split(data, []byte("\n")), bytes.Split(got, []byte("\n"))
			if len(oldLines) != len(newLines) {
				t.Fatalf("line count %d, want %d", len(newLines), len(oldLines))
			}
			diff := 0
			for i := range oldLines {
				if !bytes.Equal(oldLines[i], newLines[i]) {
					diff++
				}
			}
			if diff != tt.changed {
				t.Errorf("%d lines differ, want %d (no line without a matching cwd may change)", diff, tt.changed)
			}
		})
	}
}

func TestRewriteCwd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"top_level", `{"cwd":"/a","x":1}`, `{"cwd":"/b","x":1}`},
		{"nested_any_depth", `{"type":"turn_context","payload":{"model":"m","cwd":"/a"}}`, `{"type":"turn_context","payload":{"model":"m","cwd":"/b"}}`},
		{"spacing_kept", `{ "cwd" : "/a" , "k":"v"}`, `{ "cwd" : "/b" , "k":"v"}`},
		{"other_value_untouched", `{"cwd":"/a/sub","other":"/a"}`, `{"cwd":"/a/sub","other":"/a"}`},
		{"key_text_inside_a_string_untouched", `{"text":"{\"cwd\":\"/a\"}"}`, `{"text":"{\"cwd\":\"/a\"}"}`},
		{"escaped_value_matches", `{"cwd":"\/a"}`, `{"cwd":"/b"}`},
		{"torn_last_line_kept", "{\"cwd\":\"/a\"}\n{\"cwd\":\"/a", "{\"cwd\":\"/b\"}\n{\"cwd\":\"/a"},
		{"not_json_kept", "cwd /a\n\n{\"cwd\":\"/a\"}\n", "cwd /a\n\n{\"cwd\":\"/b\"}\n"},
		{"non_string_cwd", `{"cwd":null,"n":{"cwd":1}}`, `{"cwd":null,"n":{"cwd":1}}`},
		{"windows_line_endings", "{\"cwd\":\"/a\"}\r\n{\"cwd\":\"/a\"}\r\n", "{\"cwd\":\"/b\"}\r\n{\"cwd\":\"/b\"}\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(RewriteCwd([]byte(tt.in), "/a", "/b")); got != tt.want {
				t.Errorf("RewriteCwd(%q) =\n  %q\nwant\n  %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRecordedCwd(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"{\"type\":\"session\",\"cwd\":\"/a\"}\n{\"cwd\":\"/b\"}":                   "/a",
		"not json\n{\"text\":\"\\\"cwd\\\":\\\"/x\\\"\"}\n{\"p\":{\"cwd\":\"/c\"}}": "/c",
		"{\"cwd\":1}": "",
		"":            "",
	} {
		if got := RecordedCwd([]byte(in)); got != want {
			t.Errorf("RecordedCwd(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzRewriteCwd(f *testing.F) {
	f.Add([]byte(`{"cwd":"/a","p":{"cwd":"/a"}}`+"\n"+`{"cwd":"/a`), "/a", "/b")
	f.Fuzz(func(t *testing.T, data []byte, from, to string) {
		got := RewriteCwd(data, from, to)
		if from == to && !bytes.Equal(got, data) {
			t.Fatalf("from == to changed the data")
		}
		if bytes.Count(got, []byte("\n")) != bytes.Count(data, []byte("\n")) && !strings.Contains(to, "\n") {
			t.Fatalf("line count changed")
		}
	})
}

func TestValidSessionID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93", "ses_19cb8236effe4lu1aSmQyzbeP2", "a.b"} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("ValidSessionID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "..", "-x", "a/b", "a*", "a b", "a\nb", strings.Repeat("a", 129)} {
		if err := ValidSessionID(id); err == nil {
			t.Errorf("ValidSessionID(%q) = nil, want an error", id)
		}
	}
}
