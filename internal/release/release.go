// Package release names what a release publishes: the registry, owner and version of the
// action image and of the per-agent sandbox images, read from release.env, which
// scripts/release-images.sh reads too. It is pure: nothing here touches a registry.
package release

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed release.env
var envFile string

// The release's coordinates, from release.env.
var (
	// Registry is the host the images are pushed to.
	Registry = value("REGISTRY")
	// Owner is the registry namespace: the GitHub owner of the repository.
	Owner = value("OWNER")
	// Version is this source tree's release version, without the v of its git tag.
	Version = value("VERSION")
)

// value returns the value of key in release.env. A missing key is a broken source tree, found
// by any test run of a package that imports this one.
func value(key string) string {
	if v, ok := parseEnv(envFile)[key]; ok {
		return v
	}
	panic(fmt.Sprintf("release.env has no %s", key))
}

// parseEnv reads the KEY=VALUE lines of a shell env file, # comments left out.
func parseEnv(text string) map[string]string {
	env := map[string]string{}
	for line := range strings.Lines(text) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
			env[k] = v
		}
	}
	return env
}

// ActionImage is the action's image as action.yml names it, without the docker:// scheme.
func ActionImage() string {
	return Registry + "/" + Owner + "/sandcastle:" + Version
}

// SandboxImage is the published sandbox image of agent (a name like claude-code): the image a
// run uses when there is neither an image input nor a Dockerfile, and the base of the
// Dockerfile `sandcastle init` writes.
func SandboxImage(agent string) string {
	return Registry + "/" + Owner + "/sandcastle-sandbox-" + agent + ":" + Version
}

// MajorTag is the tag that follows the latest release of this major version, on the git
// repository (uses: owner/sandcastle@v0) and on the images alike.
func MajorTag() string {
	major, _, _ := strings.Cut(Version, ".")
	return "v" + major
}
