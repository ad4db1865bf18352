# The image Sandcastle runs Claude Code in. It is yours to change: add the tools your project
# builds and tests with. With build-image auto, Sandcastle rebuilds it when this file changes.
FROM [[.BaseImage]]

# git for the agent's commits, CA certificates for HTTPS; nodejs and npm install the agent CLI.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates nodejs npm \
 && rm -rf /var/lib/apt/lists/*

# Pinned so that every rebuild runs the same agent; change the version to upgrade it.
RUN npm install -g --no-audit --no-fund @anthropic-ai/claude-code@[[.ClaudeCodeVersion]] \
 && npm cache clean --force

# The agent runs as the owner of your checkout, so the files it writes stay yours. Sandcastle
# passes that owner's ids as AGENT_UID and AGENT_GID; --non-unique accepts ids the image
# already uses (a GID of 20 on macOS, 100 on some Linux runners).
ARG AGENT_UID=1000
ARG AGENT_GID=1000
RUN groupadd --non-unique --gid "${AGENT_GID}" agent \
 && useradd --non-unique --uid "${AGENT_UID}" --gid "${AGENT_GID}" \
      --home-dir /home/agent --create-home --shell /bin/bash agent

ENV HOME=/home/agent
USER ${AGENT_UID}:${AGENT_GID}
WORKDIR /home/agent
