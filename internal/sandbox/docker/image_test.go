package docker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/moby/client"
)

// testImageName returns a fresh image name that is removed when the test ends.
func testImageName(t *testing.T, e *Engine) string {
	name := "sandcastle-test-" + randomHex(4) + ":latest"
	t.Cleanup(func() { removeImage(t, e, name) })
	return name
}

// removeImage removes an image built by a test. Rebuilds under the same name leave earlier
// images untagged: remove them by ID.
func removeImage(t *testing.T, e *Engine, ref string) {
	e.api.ImageRemove(context.WithoutCancel(t.Context()), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureImage(t *testing.T) {
	e := requireDocker(t)
	dir := t.TempDir()
	dockerfile := filepath.Join(dir, "Dockerfile")
	writeFile(t, dockerfile, "FROM "+testImage+"\nRUN echo one > /built\n")
	var out []string
	b := Build{Image: testImageName(t, e), Dockerfile: dockerfile, OnLine: func(l string) { out = append(out, l) }}

	ensure := func(t *testing.T, b Build, wantBuild bool) string {
		t.Helper()
		out = nil
		id, err := e.EnsureImage(bounded(t), b)
		if err != nil {
			t.Fatalf("EnsureImage: %v", err)
		}
		if built := len(out) > 0; built != wantBuild {
			t.Errorf("built = %v (output %q), want %v", built, out, wantBuild)
		}
		if !strings.HasPrefix(id, "sha256:") {
			t.Errorf("EnsureImage = %q, want an image ID", id)
		}
		t.Cleanup(func() { removeImage(t, e, id) })
		return id
	}

	first := ensure(t, b, true)
	if got := ensure(t, b, false); got != first {
		t.Errorf("unchanged inputs: image %s, want %s", got, first)
	}
	never := b
	never.Policy = "never"
	if got := ensure(t, never, false); got != first {
		t.Errorf("policy never: image %s, want %s", got, first)
	}
	always := b
	always.Policy = "always"
	ensure(t, always, true)

	b.Args = map[string]string{"UNUSED": "1"}
	withArgs := ensure(t, b, true)
	if withArgs == first {
		t.Errorf("new build args: image unchanged")
	}
	ensure(t, b, false)

	writeFile(t, dockerfile, "FROM "+testImage+"\nRUN echo two > /built\n")
	if changed := ensure(t, b, true); changed == withArgs {
		t.Errorf("changed Dockerfile: image unchanged")
	}
}

func TestEnsureImageDockerfileOutsideContext(t *testing.T) {
	e := requireDocker(t)
	context, elsewhere := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(context, "data"), "from the context\n")
	dockerfile := filepath.Join(elsewhere, "Dockerfile")
	writeFile(t, dockerfile, "FROM "+testImage+"\nCOPY data /data\nRUN grep -q 'from the context' /data\n")
	if _, err := e.EnsureImage(bounded(t), Build{Image: testImageName(t, e), Dockerfile: dockerfile, Context: context}); err != nil {
		t.Fatalf("EnsureImage: %v", err)
	}
}

func TestEnsureImageErrors(t *testing.T) {
	e := requireDocker(t)
	failing := filepath.Join(t.TempDir(), "Dockerfile")
	writeFile(t, failing, "FROM "+testImage+"\nRUN echo step-output-before-failure; exit 7\n")
	missing := "sandcastle-test-missing-" + randomHex(4) + ":latest"
	tests := []struct {
		name string
		b    Build
		want []string // in the error
	}{
		{name: "never_and_missing", b: Build{Image: missing, Policy: "never", Dockerfile: failing},
			want: []string{missing, "not found locally", "input image", "key build-image"}},
		{name: "auto_without_dockerfile_and_missing", b: Build{Image: missing},
			want: []string{missing, "not found locally"}},
		{name: "always_without_dockerfile", b: Build{Image: missing, Policy: "always"}, want: []string{"needs a Dockerfile"}},
		{name: "unknown_policy", b: Build{Image: missing, Policy: "sometimes"}, want: []string{`policy "sometimes"`}},
		{name: "missing_dockerfile", b: Build{Image: missing, Dockerfile: filepath.Join(t.TempDir(), "nope")}, want: []string{"read Dockerfile"}},
		{name: "failing_build_quotes_its_output", b: Build{Image: testImageName(t, e), Dockerfile: failing},
			want: []string{"non-zero code: 7", "step-output-before-failure"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.EnsureImage(bounded(t), tt.b)
			if err == nil {
				t.Fatal("EnsureImage succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
