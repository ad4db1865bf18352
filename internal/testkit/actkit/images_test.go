package actkit

import (
	"fmt"
	"testing"
)

// The parts of images.go that need no engine: ReleaseImages, InspectImage and PullSize run in
// the tests of the release images, with Docker.

// TestImageName: each segment of a reference is escaped for the engine's request path, the
// slashes between them kept.
func TestImageName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"debian:bookworm-slim":        "debian:bookworm-slim",
		"ghcr.io/owner/sandcastle:v1": "ghcr.io/owner/sandcastle:v1",
		"a b/c?d":                     "a%20b/c%3Fd",
	} {
		if got := imageName(name); got != want {
			t.Errorf("imageName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTail: the last n lines of a command's output, a trailing newline not counting as one.
func TestTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 5, "a\nb\nc"},
		{"only\n", 1, "only"},
	}
	for _, tt := range tests {
		if got := tail([]byte(tt.out), tt.n); got != tt.want {
			t.Errorf("tail(%q, %d) = %q, want %q", tt.out, tt.n, got, tt.want)
		}
	}
}

// TestCounterAndMB: the counter counts every byte written through it, and MB shows a count
// in registry units (10^6 bytes).
func TestCounterAndMB(t *testing.T) {
	t.Parallel()
	var n counter
	fmt.Fprint(&n, "hello, ")
	fmt.Fprint(&n, "world")
	if n != 12 {
		t.Errorf("counted %d bytes, want 12", n)
	}
	for bytes, want := range map[int64]string{0: "0.0 MB", 1_260_000: "1.3 MB", 73_460_000: "73.5 MB"} {
		if got := MB(bytes); got != want {
			t.Errorf("MB(%d) = %q, want %q", bytes, got, want)
		}
	}
}
