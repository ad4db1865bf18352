package actkit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// The parts of images.go that need no engine, and InspectImage and PullSize on the test base
// image; ReleaseImages runs in the tests of the release images (internal/release), with buildx.

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

// TestInspectAndPullSize: the engine's record of the test base image names it and its size, and
// its layers gzipped, as a registry stores them, are smaller than the file system they unpack to.
func TestInspectAndPullSize(t *testing.T) {
	RequireDocker(t)
	RequireImage(t, BaseImage)
	img := InspectImage(t, BaseImage)
	if img.ID == "" || img.Size <= 0 || !slices.Contains(img.RepoTags, BaseImage) {
		t.Fatalf("InspectImage(%s) = ID %q, size %d, tags %v", BaseImage, img.ID, img.Size, img.RepoTags)
	}
	if pull := PullSize(t, BaseImage); pull <= 0 || pull >= img.Size {
		t.Errorf("PullSize(%s) = %d; want more than 0 and less than its %d bytes unpacked", BaseImage, pull, img.Size)
	}
}

// TestReleaseImagesCacheAndBuildx: an image built before in this test binary is not built again,
// and without buildx the test skips (fails under CI=true) before anything is built.
func TestReleaseImagesCacheAndBuildx(t *testing.T) {
	RequireDocker(t)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "buildx"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin) // no docker on it, so no plugin: the buildx found is this one
	releaseBuilds.Lock()
	releaseBuilds.ids["built-before"] = "sha256:0123"
	releaseBuilds.Unlock()
	t.Cleanup(func() {
		releaseBuilds.Lock()
		delete(releaseBuilds.ids, "built-before")
		releaseBuilds.Unlock()
	})
	// A root with no release script: a build would fail the test.
	if ids := ReleaseImages(t, t.TempDir(), "built-before"); ids["built-before"] != "sha256:0123" {
		t.Errorf("ReleaseImages = %v; want the image built before", ids)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	rec := testkit.NewRecordingTB(t)
	if ids := ReleaseImages(rec, t.TempDir(), "built-before"); ids != nil || !rec.Skipped() || !strings.Contains(rec.Skips[0], "docker buildx not found") {
		t.Errorf("without buildx: ids %v, skips %q; want a skip naming buildx", ids, rec.Skips)
	}
}
