# The action image, published as ghcr.io/OWNER/sandcastle:VERSION (see internal/release): the
# sandcastle binary, git, CA certificates, tini as PID 1 (signals reach the binary, zombies are
# reaped), and the Claude Code CLI, its one native binary for the image's platform, so that
# sandbox: none can run the agent here. No WORKDIR: the runner chooses the working directory.
#
# `docker build .` builds it for this machine; scripts/release-images.sh builds the release's
# platforms with buildx. The stages are targets of their own: build (the binary), claude (the
# CLI, fetched with npm pack), action (the image, last so that it is the default).

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/sandcastle .

FROM debian:bookworm-slim AS claude
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates nodejs npm \
	&& apt-get clean && rm -rf /var/lib/apt/lists/*
# The version is pinned in scripts/agent-clis.env, which the tests' CLIs come from too.
COPY scripts/agent-clis.env /src/scripts/
COPY images/install-agent.sh /src/images/
# Set by buildx for each platform it builds; the classic builder leaves it empty.
ARG TARGETARCH
RUN /src/images/install-agent.sh claude-code /out

FROM debian:bookworm-slim AS action
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates git tini \
	&& apt-get clean && rm -rf /var/lib/apt/lists/*
COPY --from=claude /out/ /
COPY --from=build /out/sandcastle /usr/local/bin/sandcastle
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/sandcastle"]
