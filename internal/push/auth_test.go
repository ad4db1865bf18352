package push

import (
	"encoding/base64"
	"os"
	"slices"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

func TestCredentials_config_for_GHES(t *testing.T) {
	t.Parallel()
	header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:tok"))
	for _, server := range []string{"https://ghe.example.com", "https://ghe.example.com/"} {
		c, err := newCredentials(server, "tok")
		if err != nil {
			t.Fatal(err)
		}
		key := "http.https://ghe.example.com/.extraheader"
		want := []string{"core.hooksPath=" + os.DevNull, key + "=", key + "=" + header, "credential.helper=", "core.askPass="}
		if got := c.config(); !slices.Equal(got, want) {
			t.Errorf("config(%q) = %q\nwant %q", server, got, want)
		}
	}
}

func TestCredentials_config_without_token(t *testing.T) {
	t.Parallel()
	c, err := newCredentials("https://github.com", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.config(), []string{"core.hooksPath=" + os.DevNull}; !slices.Equal(got, want) {
		t.Errorf("config = %q, want %q", got, want)
	}
}

func TestCredentials_serves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		server, url string
		want        bool
	}{
		{"https://github.com", "https://github.com/o/r.git", true},
		{"https://github.com", "https://GitHub.com:443/o/r", true},
		{"https://github.com", "https://user@github.com/o/r.git", true},
		{"https://github.com", "http://github.com/o/r.git", false},
		{"https://github.com", "https://github.com.evil.example/o/r.git", false},
		{"https://github.com", "https://github.com:8443/o/r.git", false},
		{"https://github.com", "git@github.com:o/r.git", false},
		{"https://github.com", "ssh://git@github.com/o/r.git", false},
		{"https://github.com", "/srv/git/r.git", false},
		{"https://ghe.example.com/git", "https://ghe.example.com/git/o/r.git", true},
		{"https://ghe.example.com/git", "https://ghe.example.com/gitx/o/r.git", false},
		{"https://ghe.example.com/git", "https://ghe.example.com/o/r.git", false},
	}
	for _, tt := range tests {
		c, err := newCredentials(tt.server, "tok")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.serves(tt.url); got != tt.want {
			t.Errorf("server %s: serves(%q) = %v, want %v", tt.server, tt.url, got, tt.want)
		}
	}
}

func TestCredentials_redactErr(t *testing.T) {
	t.Parallel()
	c, err := newCredentials("https://github.com", "ghs_secret")
	if err != nil {
		t.Fatal(err)
	}
	in := &git.Error{Args: []string{"push"}, ExitCode: 128,
		Stderr: "fatal: header AUTHORIZATION: basic " + c.basic + " for ghs_secret\n"}
	got := c.redactErr(in).Error()
	if want := "git push: exit 128: fatal: header AUTHORIZATION: basic *** for ***"; got != want {
		t.Errorf("redacted = %q, want %q", got, want)
	}
	if in.Stderr != "fatal: header AUTHORIZATION: basic "+c.basic+" for ghs_secret\n" {
		t.Error("redactErr changed the original error")
	}
}
