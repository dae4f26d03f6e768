# syntax=docker/dockerfile:1
#
# punchgate in a container:
#   docker build -t punchgate .
#   docker run -d --name punchgate --restart unless-stopped \
#     -v /srv/punchgate/punchgate.yaml:/etc/punchgate/punchgate.yaml:ro \
#     -v /srv/punchgate/token:/run/secrets/punchgate_token:ro \
#     -v punchgate-journal:/var/lib/punchgate \
#     punchgate
# The config must say `journal.path: /var/lib/punchgate/journal.db` and
# `hrms.tokenFile: /run/secrets/punchgate_token` (or pass -e PUNCHGATE_HRMS_TOKEN=...).
# A serial terminal: add --device /dev/ttyUSB0 --group-add dialout.

# ---- build: compile TypeScript and the native modules (better-sqlite3, serialport, unix-dgram) ----
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Native modules are built from source against this image's Node and glibc,
# not downloaded as prebuilt binaries.
ENV npm_config_build_from_source=true
COPY package.json package-lock.json ./
# --ignore-scripts, then `npm rebuild`: the dependencies' install scripts (the native builds)
# run once the whole tree is in place; the TypeScript build needs the sources, copied below.
RUN npm ci --ignore-scripts && npm rebuild
COPY tsconfig.json tsconfig.build.json rolldown.config.ts ./
COPY src ./src
COPY config ./config
RUN npm run build && npm prune --omit=dev

# ---- runtime: Node, the compiled code and the production node_modules only ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
# Same memory settings as the systemd unit (see systemd/punchgate.service): a small young
# generation, two malloc arenas, malloc blocks of 32 KB and more in pages of their own, and V8's
# --optimize-for-size (a node flag: NODE_OPTIONS does not take it, so the ENTRYPOINT gives it).
ENV NODE_OPTIONS="--max-semi-space-size=4" MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768
# A fixed non-root user (uid/gid 10001) that owns the journal volume; in dialout for serial devices.
RUN groupadd --system --gid 10001 punchgate \
 && useradd --system --uid 10001 --gid punchgate --groups dialout \
      --home-dir /var/lib/punchgate --shell /usr/sbin/nologin punchgate \
 && mkdir -p /var/lib/punchgate /etc/punchgate \
 && chown punchgate:punchgate /var/lib/punchgate \
 && chmod 0750 /var/lib/punchgate
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
# The CLI is one bundled file (see rolldown.config.ts); node_modules holds the native modules it loads.
COPY --from=build /app/dist/punchgate.js /app/dist/punchgate.js.map ./dist/
COPY --from=build /app/config ./config
RUN ln -s /app/dist/punchgate.js /usr/local/bin/punchgate && chmod 0755 /app/dist/punchgate.js

USER punchgate
# The journal, its lock and the status log. Created owned by the image user, so a new named
# volume starts writable; a bind mount must belong to uid 10001.
VOLUME /var/lib/punchgate
# Healthy while the config is valid, the journal opens, and the daemon keeps rewriting its
# status log (a dead or stuck daemon stops doing that). No network and no devices touched.
HEALTHCHECK --interval=60s --timeout=15s --start-period=60s --retries=3 \
  CMD ["node", "/app/dist/punchgate.js", "check", "--quick", "--config", "/etc/punchgate/punchgate.yaml"]
# Node runs as PID 1: punchgate handles SIGTERM/SIGINT itself (docker stop waits 10 s by
# default; give it --stop-timeout 30 to match the daemon's 20 s stop bound).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--optimize-for-size", "/app/dist/punchgate.js"]
CMD ["run", "--config", "/etc/punchgate/punchgate.yaml"]
