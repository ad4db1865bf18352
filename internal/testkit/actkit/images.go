package actkit

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// releaseBuilds remembers the images ReleaseImages built in this test binary, by image name.
var releaseBuilds = struct {
	sync.Mutex
	ids map[string]string
}{ids: map[string]string{}}

// ReleaseImages builds images (action, sandbox-claude-code, ...) with the release's own build
// steps, scripts/release-images.sh of the repository at root, for this machine's platform and
// into the local engine, tagged as the release tags them; and returns their image IDs by name.
// Each image is built at most once per test binary; the engine's build cache makes a build that
// another package's tests did before a matter of seconds. It needs the engine and buildx (the
// docker plugin, or scripts/install-buildx.sh's on PATH), with the skip-or-fail rule of
// RequireDocker.
func ReleaseImages(t testing.TB, root string, images ...string) map[string]string {
	t.Helper()
	RequireDocker(t)
	if exec.Command("docker", "buildx", "version").Run() != nil {
		if _, err := exec.LookPath("buildx"); err != nil {
			testkit.SkipOrFail(t, "docker buildx not found (neither the plugin nor buildx on PATH)", "install it with scripts/install-buildx.sh and put the directory it prints on PATH")
			return nil
		}
	}
	releaseBuilds.Lock()
	defer releaseBuilds.Unlock()
	var missing []string
	for _, image := range images {
		if releaseBuilds.ids[image] == "" {
			missing = append(missing, image)
		}
	}
	if len(missing) > 0 {
		meta := t.TempDir()
		cmd := exec.Command(filepath.Join(root, "scripts", "release-images.sh"), missing...)
		cmd.Env = append(os.Environ(), "RELEASE_METADATA="+meta)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/release-images.sh %s: %v\n%s", strings.Join(missing, " "), err, tail(out, 40))
		}
		for _, image := range missing {
			var m struct {
				Digest string `json:"containerimage.digest"`
			}
			data, err := os.ReadFile(filepath.Join(meta, image+".json"))
			if err == nil {
				err = json.Unmarshal(data, &m)
			}
			if err != nil || m.Digest == "" {
				t.Fatalf("the build metadata of %s names no image (%v): %s", image, err, data)
			}
			releaseBuilds.ids[image] = m.Digest
		}
	}
	ids := map[string]string{}
	for _, image := range images {
		ids[image] = releaseBuilds.ids[image]
	}
	return ids
}

// tail returns the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Image is what the engine says about an image.
type Image struct {
	ID       string
	RepoTags []string
	Size     int64 // bytes of its file system, uncompressed
	Config   struct {
		Labels     map[string]string
		Entrypoint []string
		User       string
	}
}

// InspectImage returns the engine's record of the image name (a reference or an ID).
func InspectImage(t testing.TB, name string) Image {
	t.Helper()
	var img Image
	if err := json.Unmarshal(engineRead(t, imagePath(name)), &img); err != nil {
		t.Fatalf("inspect image %s: %v", name, err)
	}
	return img
}

// PullSize is the size of the image name as a registry stores it and a runner downloads it: its
// layers compressed with gzip at the default level, as docker push and buildx compress them,
// read through the engine's image export.
func PullSize(t testing.TB, name string) int64 {
	t.Helper()
	body := engineOpen(t, "/images/"+imageName(name)+"/get")
	defer body.Close()
	// Every file of the export is compressed, as its layers are listed in manifest.json, which
	// may come last.
	sizes := map[string]int64{}
	var manifest []struct{ Layers []string }
	tr := tar.NewReader(body)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read the export of %s: %v", name, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if hdr.Name == "manifest.json" {
			if err := json.NewDecoder(tr).Decode(&manifest); err != nil {
				t.Fatalf("manifest.json of %s: %v", name, err)
			}
			continue
		}
		var n counter
		zw := gzip.NewWriter(&n)
		if _, err := io.Copy(zw, tr); err != nil {
			t.Fatalf("read %s of %s: %v", hdr.Name, name, err)
		}
		zw.Close()
		sizes[hdr.Name] = int64(n)
	}
	if len(manifest) != 1 || len(manifest[0].Layers) == 0 {
		t.Fatalf("the export of %s has %d images in manifest.json, want one with layers", name, len(manifest))
	}
	var total int64
	for _, layer := range manifest[0].Layers {
		size, ok := sizes[layer]
		if !ok {
			t.Fatalf("the export of %s lacks its layer %s", name, layer)
		}
		total += size
	}
	return total
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// imageName escapes each segment of an image name for a request path; names keep their
// slashes (registry/repo:tag), and a stray ? or # cannot change the request.
func imageName(name string) string {
	segments := strings.Split(name, "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return strings.Join(segments, "/")
}

// engineRead returns the body of GET path from the engine, which must answer 200.
func engineRead(t testing.TB, path string) []byte {
	t.Helper()
	body := engineOpen(t, path)
	defer body.Close()
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("docker engine: GET %s: %v", path, err)
	}
	return data
}

// engineOpen starts GET path on the engine at DOCKER_HOST (or the default socket) and returns
// the body of its 200 answer.
func engineOpen(t testing.TB, path string) io.ReadCloser {
	t.Helper()
	resp, err := engineRequest(t.Context(), os.Getenv("DOCKER_HOST"), path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		t.Fatalf("docker engine: GET %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return resp.Body
}

// MB formats a byte count in MB (10^6 bytes), as registries show image sizes.
func MB(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
