#!/usr/bin/env bash
# Live interop with the released seed Go SDK (v1.0.3) on the shared Redis Cluster (127.0.0.1:7000-7005, bin/lib.sh)
# through the key prefix {backstage}: the seed's single-node client talks to the primary that owns that slot, the Java
# runtime runs in cluster mode. Both ways: seed enqueues / Java runs, Java enqueues / seed runs, checked on the broker.
#   SEED_GO_DIR=/path/to/Vyr-e/backstage/packages/backstage-go tools/seed-cluster-probe/run.sh [jobs] [delayed]
# SEED_GO_DIR: a checkout of the seed at 01089f24550cbb71ae35f34fb4c3aec846f99f6c (the module proxy does not serve it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
: "${SEED_GO_DIR:?set SEED_GO_DIR to the packages/backstage-go directory}"
JOBS="${1:-200}"
DELAYED="${2:-20}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp "$ROOT/tools/seed-cluster-probe/main.go" "$ROOT/tools/seed-cluster-probe/go.mod" "$WORK/"
(cd "$WORK" && go mod edit -replace "github.com/vyr-e/backstage/packages/backstage-go=$SEED_GO_DIR" \
  && go mod tidy >/dev/null 2>&1 && go build -o "$WORK/seed-cluster-probe" .)
cd "$ROOT"
# shellcheck source=/dev/null
source bin/lib.sh
ensure_redis_cluster
mvn -B -ntp -q test-compile dependency:build-classpath -Dmdep.outputFile=target/probe-classpath.txt \
  -Dmdep.includeScope=test -pl worker-runtime -am >&2
java -cp "worker-runtime/target/test-classes:worker-runtime/target/classes:$(cat worker-runtime/target/probe-classpath.txt)" \
  -Dbackstage.test.logLevel=WARN dev.backstage.runtime.redis.SeedClusterInterop "$WORK/seed-cluster-probe" "$JOBS" "$DELAYED"
