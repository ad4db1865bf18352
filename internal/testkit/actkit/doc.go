// Package actkit runs workflows under nektos/act against the local Docker engine, and holds the
// Docker helpers of the Docker tier: RequireDocker and RequireImage (skip locally, fail under
// CI=true), the locally built test images (BaseImage, ClaudeImage, AgentsImage), ReleaseImages,
// InspectImage, and ForContainers, which gives a test server an address that containers reach.
// Only Docker-tier tests import it.
//
// Act runs each job in a container of Platform on the host's network, and each Docker action in
// a container of its own that joins the job's network, as Gitea's and Forgejo's runners, built
// on act, run them too. Nothing is pulled: actions come from local directories (Actions), and
// CheckoutStandIn writes a composite action that fetches the branch from the git remote as
// actions/checkout would.
package actkit
