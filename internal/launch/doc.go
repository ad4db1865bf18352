// Package launch starts the container a run's agent works in, as the Docker inputs configure
// it: the image built when its Dockerfile changed, the workspace mounted at the path it has
// here (translated for a daemon outside our own container) or copied in where the daemon cannot
// see it, the repository's git directory under gitguard's read-only binds, the agent as the
// workspace's owner, hardened, with the host's own variables left out; and containers left by
// runs whose process is gone swept first.
package launch
