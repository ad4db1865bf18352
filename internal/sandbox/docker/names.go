package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"
)

// Labels on every container and built image, so that a sweep can find leftovers and an image
// build can be skipped when its inputs have not changed.
const (
	labelRun        = "sandcastle.run"               // the run that started the container
	labelRepo       = "sandcastle.repo"              // repoKey of the repository it worked on
	labelOwner      = "sandcastle.owner"             // the process that started it, see Options.Owner
	labelDockerfile = "sandcastle.dockerfile-sha256" // on images: hash of the Dockerfile and build args
)

// Paths inside every container.
const (
	// Home is HOME in the sandbox: a tmpfs owned by the container user.
	Home = "/home/agent"
	// Workspace is the default working directory and RepoDir.
	Workspace = Home + "/workspace"
	// stateDir holds the process-group files of running Execs: a small tmpfs that only the
	// container user can write, so that no image layout can break or spoof it.
	stateDir = "/run/sandcastle"
)

// Defaults of Options.
const (
	// defaultMemory is the memory limit when Options.Memory is 0. It covers a Node-based agent CLI
	// and the builds and tests it runs, and keeps a runaway process from taking a 16 GiB runner
	// down with it. HOME's tmpfs counts against it.
	defaultMemory = 4 << 30
	// defaultPidsLimit is the process limit when Options.PidsLimit is 0: far above what an agent
	// and a parallel build need, far below a fork bomb.
	defaultPidsLimit = 4096
)

const (
	// removeTimeout bounds removing a container. Removal runs even when the caller's context has
	// ended, so that a cancelled run never leaks its container.
	removeTimeout = 30 * time.Second
	// stopTimeout bounds the API calls that stop an Exec after its context has ended.
	stopTimeout = 10 * time.Second
)

// repoKey is the value of labelRepo for a repository: a short hash of its cleaned path, so that
// labels neither leak paths nor exceed label limits.
func repoKey(repo string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(repo)))
	return hex.EncodeToString(sum[:8])
}
