#!/usr/bin/env bash
# Builds the release's images with docker buildx: the action image (Dockerfile) and one sandbox
# image per agent (images/sandbox/Dockerfile), tagged with internal/release/release.env's
# version and its major tag (v0), and labelled with where they come from.
#
#   scripts/release-images.sh [IMAGE...]         build for this machine's platform only and load
#                                                into the local engine; nothing is pushed
#   scripts/release-images.sh --push             build every image for each of its platforms,
#                                                push both tags, then move the git tag v0 to HEAD
#                                                (the release workflow; needs a registry login)
#   scripts/release-images.sh --list [IMAGE...]  print each image's name, tags and platforms
#
# IMAGE is action or sandbox-AGENT (sandbox-claude-code, ...); the default is every image.
#
# Environment:
#   RELEASE_TAG  with --push: the git tag being released, which must be v and release.env's
#                VERSION, so a tag never publishes images of another version
#   BUILDX       the buildx command (default `docker buildx`, else `buildx` on PATH: see
#                scripts/install-buildx.sh)
#   RELEASE_METADATA  a directory: each build writes buildx's metadata there as IMAGE.json (its
#                containerimage.digest is the built image), for the tests
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=internal/release/release.env
. internal/release/release.env
# shellcheck source=scripts/agent-clis.env
. scripts/agent-clis.env

major="v${VERSION%%.*}"
source_url="https://github.com/$OWNER/sandcastle"
agents=(claude-code codex copilot cursor opencode pi)

die() {
	printf 'release-images: %s\n' "$*" >&2
	exit 1
}

# platforms IMAGE: the platforms the release builds IMAGE for.
platforms() {
	case $1 in
	# opencode publishes no linux-arm64 build of the pinned version on npm.
	sandbox-opencode) echo linux/amd64 ;;
	*) echo linux/amd64,linux/arm64 ;;
	esac
}

# agent_version AGENT: the pinned version of AGENT's CLI.
agent_version() {
	local var
	var="$(tr 'a-z-' 'A-Z_' <<<"$1")_VERSION"
	printf '%s' "${!var}"
}

# build_args IMAGE: buildx's arguments for IMAGE, less the output and platform.
build_args() {
	local image=$1 name agent
	args=(--label "org.opencontainers.image.source=$source_url"
		--label "org.opencontainers.image.version=$VERSION"
		--label "org.opencontainers.image.revision=$(git rev-parse HEAD)")
	case $image in
	action)
		name=sandcastle
		args+=(-f Dockerfile --target action
			--label "org.opencontainers.image.title=sandcastle"
			--label "org.opencontainers.image.description=The Sandcastle GitHub Action: runs an AI coding agent in a loop against a repository")
		;;
	sandbox-*)
		agent=${image#sandbox-}
		name="sandcastle-sandbox-$agent"
		args+=(-f images/sandbox/Dockerfile --target "$agent"
			--label "org.opencontainers.image.title=$name"
			--label "org.opencontainers.image.description=Sandcastle's sandbox for the $agent agent"
			--label "sandcastle.agent=$agent"
			--label "sandcastle.agent-version=$(agent_version "$agent")")
		;;
	esac
	ref="$REGISTRY/$OWNER/$name"
	args+=(-t "$ref:$VERSION" -t "$ref:$major")
}

mode=load
case ${1:-} in
--push | --list)
	mode=${1#--}
	shift
	;;
--*) die "unknown option $1; see the comment at the top of $0" ;;
esac
images=("$@")
[ "$mode" != push ] || [ ${#images[@]} -eq 0 ] || die "--push publishes every image; name none"
if [ ${#images[@]} -eq 0 ]; then
	images=(action)
	for a in "${agents[@]}"; do images+=("sandbox-$a"); done
fi
for image in "${images[@]}"; do
	case $image in
	action) ;;
	sandbox-*) [[ " ${agents[*]} " == *" ${image#sandbox-} "* ]] || die "unknown image $image; the agents are ${agents[*]}" ;;
	*) die "unknown image $image; use action or sandbox-AGENT" ;;
	esac
done

if [ "$mode" = list ]; then
	for image in "${images[@]}"; do
		build_args "$image"
		printf '%s %s:%s %s:%s %s\n' "$image" "$ref" "$VERSION" "$ref" "$major" "$(platforms "$image")"
	done
	exit 0
fi

if [ "$mode" = push ]; then
	[ "${RELEASE_TAG:-}" = "v$VERSION" ] ||
		die "RELEASE_TAG is '${RELEASE_TAG:-}', but internal/release/release.env says version $VERSION: tag v$VERSION, or bump VERSION (and action.yml) first"
	git diff --quiet HEAD || die "the checkout has changes; release a clean commit"
fi

if [ -n "${BUILDX:-}" ]; then
	read -ra buildx <<<"$BUILDX"
elif docker buildx version >/dev/null 2>&1; then
	buildx=(docker buildx)
elif command -v buildx >/dev/null; then
	buildx=(buildx)
else
	die "docker buildx not found: install the plugin, or put scripts/install-buildx.sh's directory on PATH"
fi

for image in "${images[@]}"; do
	build_args "$image"
	if [ "$mode" = push ]; then
		args+=(--platform "$(platforms "$image")" --push)
	else
		# The docker driver of a plain engine builds this machine's platform only.
		args+=(--load)
	fi
	if [ -n "${RELEASE_METADATA:-}" ]; then
		args+=(--metadata-file "$RELEASE_METADATA/$image.json")
	fi
	printf 'release-images: %s -> %s:%s, %s:%s\n' "$image" "$ref" "$VERSION" "$ref" "$major" >&2
	"${buildx[@]}" build --progress=plain "${args[@]}" . >&2 ||
		die "building $image failed"
done

if [ "$mode" = push ]; then
	# The major tag of the repository moves with the images', so uses: ...@v0 and the image its
	# action.yml names are one release.
	git tag -f "$major" HEAD
	git push -f origin "refs/tags/$major"
fi
