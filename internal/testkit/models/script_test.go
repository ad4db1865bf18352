package models

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// These tests check the script machinery both stand-ins share, through each of them.

// scripted is what the shared tests use of a stand-in.
type scripted interface {
	Requests() []Request
	WaitRequests(ctx context.Context, n int) error
}

// standIn starts one kind of stand-in and says how its main requests and replies look.
type standIn struct {
	name  string
	start func(t testing.TB, steps ...Step) (s scripted, mainURL string)
	// body is a main request; %t says whether it asks to stream.
	body string
	// textDone is the event after which a TextThenHang reply holds; finish are the events that
	// would end the reply.
	textDone string
	finish   []string
	// goldenPrefix starts the names of its golden files.
	goldenPrefix string
}

func standIns() []standIn {
	return []standIn{
		{
			name: "anthropic",
			start: func(t testing.TB, steps ...Step) (scripted, string) {
				a := NewAnthropic(t, steps...)
				return a, a.URL() + "/v1/messages"
			},
			body:     mainBody,
			textDone: "content_block_stop",
			finish:   []string{"message_delta", "message_stop"},
		},
		{
			name: "openai",
			start: func(t testing.TB, steps ...Step) (scripted, string) {
				o := NewOpenAI(t, steps...)
				return o, o.URL() + "/responses"
			},
			body:         responsesBody,
			textDone:     "response.output_item.done",
			finish:       []string{"response.completed"},
			goldenPrefix: "openai_",
		},
	}
}

// TestReplies pins the replies of each stand-in in testdata/PREFIXNAME.golden.
func TestReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		standIn string
		name    string
		step    Step
		stream  bool
	}{
		{"anthropic", "text_stream", Text("Done. <promise>COMPLETE</promise>"), true},
		{"anthropic", "bash_stream", Bash(`echo "hi" >> notes.txt`), true},
		{"anthropic", "text_message", Text("plain"), false},
		{"anthropic", "bash_message", Bash("true"), false},
		{"anthropic", "error_wraps_message", Error(401, "invalid x-api-key"), true},
		{"anthropic", "error_verbatim_json", Error(529, `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`), true},
		{"anthropic", "error_unknown_status_is_api_error", Error(503, "down"), true},
		{"openai", "text_stream", Text("Done. <promise>COMPLETE</promise>"), true},
		{"openai", "bash_stream", Bash(`echo "hi" >> notes.txt`), true},
		{"openai", "text_response", Text("plain"), false},
		{"openai", "bash_response", Bash("true"), false},
		{"openai", "error_wraps_message", Error(401, "Incorrect API key provided"), true},
		{"openai", "error_verbatim_json", Error(429, `{"error":{"message":"quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`), true},
		{"openai", "error_server_error", Error(503, "down"), true},
	}
	byName := map[string]standIn{}
	for _, si := range standIns() {
		byName[si.name] = si
	}
	for _, tt := range tests {
		t.Run(tt.standIn+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			si := byName[tt.standIn]
			_, url := si.start(t, tt.step)
			status, body := post(t, t.Context(), url, fmt.Sprintf(si.body, tt.stream))
			golden(t, si.goldenPrefix+tt.name, fmt.Appendf(nil, "HTTP %d\n\n%s", status, body))
		})
	}
}

func TestScriptMisuseFailsTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		steps     []Step
		requests  int
		skip      bool // the test skips before the stand-in is used (a tool is missing)
		wantError string
	}{
		{"exhausted", []Step{Text("one")}, 2, false, "script exhausted"},
		{"unused_steps", []Step{Text("one"), Text("two")}, 1, false, "script not finished"},
		{"exact", []Step{Text("one")}, 1, false, ""},
		{"skipped", []Step{Text("one")}, 0, true, ""},
	}
	for _, si := range standIns() {
		for _, tt := range tests {
			t.Run(si.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				rec := testkit.NewRecordingTB(t)
				_, url := si.start(rec, tt.steps...)
				var last []byte
				for range tt.requests {
					_, last = post(t, t.Context(), url, fmt.Sprintf(si.body, false))
				}
				if tt.skip {
					rec.Skipf("skipping: not here")
				}
				rec.RunCleanups()

				if got := strings.Join(rec.Errors, "\n"); !strings.Contains(got, tt.wantError) || (tt.wantError == "") != (got == "") {
					t.Errorf("test errors = %q, want one containing %q", got, tt.wantError)
				}
				if tt.name == "exhausted" && !bytes.Contains(last, []byte("script exhausted")) {
					t.Errorf("reply past the script = %s, want text %q", last, "script exhausted")
				}
			})
		}
	}
}

func TestHangEndsWithClientOrTest(t *testing.T) {
	t.Parallel()
	for _, si := range standIns() {
		t.Run(si.name, func(t *testing.T) {
			t.Parallel()
			rec := testkit.NewRecordingTB(t)
			s, url := si.start(rec, Hang(), TextThenHang("signal"))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()

			// The first hang ends when its client goes away.
			errc := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(fmt.Sprintf(si.body, true)))
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				errc <- err
			}()
			if err := s.WaitRequests(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-errc; err == nil {
				t.Errorf("hung request returned without error, want the cancellation")
			}

			// The second streams its text, then holds the stream until the test ends: cleanup
			// must release it or the server would never close.
			resp, err := http.Post(url, "application/json", strings.NewReader(fmt.Sprintf(si.body, true)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got bytes.Buffer
			buf := make([]byte, 4096)
			for !strings.Contains(got.String(), si.textDone) {
				n, err := resp.Body.Read(buf)
				got.Write(buf[:n])
				if err != nil {
					t.Fatalf("stream ended before %s: %v: %s", si.textDone, err, got.String())
				}
			}
			rec.RunCleanups()
			rest, _ := io.ReadAll(resp.Body)
			got.Write(rest)
			if !strings.Contains(got.String(), `"text":"signal"`) {
				t.Errorf("text-then-hang stream = %s, want the text", got.String())
			}
			for _, ev := range si.finish {
				if strings.Contains(got.String(), ev) {
					t.Errorf("text-then-hang stream = %s, want no %s", got.String(), ev)
				}
			}
			if len(rec.Errors) > 0 {
				t.Errorf("unexpected test errors: %q", rec.Errors)
			}
		})
	}
}
