#!/usr/bin/env bash
# Live broadcast interop with the released seed Go SDK (v1.0.3), both ways, on a Redis of its own (the seed listener
# is fixed to backstage:broadcast, so the shared Redis is not used).
#   SEED_GO_DIR=/path/to/Vyr-e/backstage/packages/backstage-go tools/seed-broadcast-probe/run.sh
# SEED_GO_DIR: a checkout of the seed at 01089f24550cbb71ae35f34fb4c3aec846f99f6c (the module proxy does not serve it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
: "${SEED_GO_DIR:?set SEED_GO_DIR to the packages/backstage-go directory}"
WORK="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT="${PROBE_REDIS_PORT:-}"
[ -n "$PORT" ] || PORT="$(free_port)"
cleanup() { [ -n "${REDIS_PID:-}" ] && kill "$REDIS_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cp "$ROOT/tools/seed-broadcast-probe/main.go" "$ROOT/tools/seed-broadcast-probe/go.mod" "$WORK/"
(cd "$WORK" && go mod edit -replace "github.com/vyr-e/backstage/packages/backstage-go=$SEED_GO_DIR" \
  && go mod tidy >/dev/null 2>&1 && go build -o "$WORK/seed-broadcast-probe" .)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
cd "$ROOT"
mvn -B -ntp -q test-compile dependency:build-classpath -Dmdep.outputFile=target/probe-classpath.txt \
  -Dmdep.includeScope=test -pl worker-runtime -am >&2
java -cp "worker-runtime/target/test-classes:worker-runtime/target/classes:$(cat worker-runtime/target/probe-classpath.txt)" \
  -Dbackstage.test.logLevel=WARN dev.backstage.runtime.redis.SeedBroadcastInterop "$PORT" "$WORK/seed-broadcast-probe"
