# The action image: the sandcastle binary, git, CA certificates, tini as PID 1 (signals reach the
# binary, zombies are reaped), and the Claude Code CLI so that sandbox: none can run the agent here.
# GitHub's runner builds it with the workspace mounted at /github/workspace; no WORKDIR is set,
# since the runner chooses the working directory.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/sandcastle .

FROM debian:bookworm-slim
ARG CLAUDE_CODE_VERSION=2.1.332
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates git tini nodejs npm \
	&& npm install -g --no-audit --no-fund "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" \
	&& npm cache clean --force \
	&& apt-get purge -y npm nodejs && apt-get autoremove -y \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /out/sandcastle /usr/local/bin/sandcastle
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/sandcastle"]
