# The DistDebug runner image: Node.js 20, git, bubblewrap and the published `distdebug` CLI.
# Build:  docker build -t <registry>/distdebug:<version> --build-arg DISTDEBUG_VERSION=<version> .
# Used by the Kubernetes Indexed Job that `distdebug k8s job` prints (docs/guide/scale-out.md).
FROM node:20-bookworm-slim

# git clones the catalog's repositories; bubblewrap is the sandbox; python3, make and g++
# build tree-sitter's native module during the npm install.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git ca-certificates python3 make g++ util-linux \
 && rm -rf /var/lib/apt/lists/*

ARG DISTDEBUG_VERSION=latest
RUN npm install --global "distdebug@${DISTDEBUG_VERSION}" \
 && npm cache clean --force \
 && apt-get purge -y make g++ && apt-get autoremove -y

# Results and the repository cache live on volumes mounted by the Job; the working folder
# holds results/ so that `distdebug run` writes results/<config>.shard-<i>-of-<n>.
ENV DISTDEBUG_CACHE_DIR=/cache
WORKDIR /data
# The sandbox runs as root inside the pod (privileged: see docs/guide/scale-out.md) and
# drops each attempt to an unprivileged uid itself.
USER root
ENTRYPOINT ["distdebug"]
CMD ["--help"]
