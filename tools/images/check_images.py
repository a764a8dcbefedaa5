#!/usr/bin/env python3
"""Checks the OCI image tarballs bin/build-images wrote, without a container engine.

Usage: check_images.py <images dir> [--run]

For backstage-runtime, backstage-operator and backstage-sample-tasks:
  - the OCI layout: oci-layout, index.json naming the image, every blob's sha256 and size as the manifest says;
  - the config: entrypoint (the image's own /opt/java, the main class), a numeric non-root user, the env, the
    exposed ports, the org.opencontainers.image.* labels;
  - the layers: the base (JVM + libraries), then dependencies, resources, classes each in their own layer;
  - the files: the main class and the broker clients are in, no build tools (javac, jar, jlink, jmods, a
    compiler, Maven, a package manager, a shell), no sources, no test classes or test libraries; the task image
    adds its module under /opt/backstage/tasks without a second copy of the runtime.
With --run (needs unshare and the local Redis): the sample-tasks image's file system is unpacked, its entrypoint
started in a chroot (a user namespace; /proc mounted as a container runtime would), its own JVM enqueues a
processOrder job with the CLI, and the worker must serve /readyz, run the job and its chained sendReceipt
(backstage_acks_total 2 on /metrics) and exit 0 on SIGTERM.
Prints one line per check; exits 1 when any fails.
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import uuid

FAILED = []


def expect(condition, what, detail=""):
    print(("  ok    " if condition else "  FAIL  ") + what + ("" if condition or not detail else f": {detail}"))
    if not condition:
        FAILED.append(what)
    return condition


NONROOT = "65532:65532"
COMMON_LABELS = ("org.opencontainers.image.title", "org.opencontainers.image.description",
                 "org.opencontainers.image.version", "org.opencontainers.image.source")
FORBIDDEN = {  # path prefix or exact path in the image -> why it must not be there
    "opt/java/bin/javac": "a compiler", "opt/java/bin/jar": "the jar tool", "opt/java/bin/jlink": "jlink",
    "opt/java/jmods": "jmods", "usr/bin/mvn": "Maven", "usr/bin/gcc": "a C compiler", "usr/bin/apt": "apt",
    "usr/bin/dpkg": "dpkg", "bin/sh": "a shell", "bin/bash": "a shell", "usr/bin/git": "git",
}
RUNTIME_PATH = ("/opt/backstage/app/resources:/opt/backstage/app/classes:/opt/backstage/app/libs/*:"
                "/opt/backstage/tasks/*:/opt/backstage/tasks/resources:/opt/backstage/tasks/classes:"
                "/opt/backstage/tasks/libs/*")
EXPECTED = {
    "backstage-runtime": {
        "entrypoint": ["/opt/java/bin/java", "-cp", RUNTIME_PATH, "dev.backstage.runtime.main.RuntimeMain"],
        "ports": {"8080/tcp"}, "env": {"BACKSTAGE_CONFIG": "/etc/backstage/runtime.yaml"},
        "files": ["opt/backstage/app/classes/dev/backstage/runtime/main/RuntimeMain.class",
                  "opt/backstage/app/classes/dev/backstage/runtime/cli/BackstageCli.class", "opt/java/bin/java",
                  "lib64/ld-linux-x86-64.so.2", "etc/passwd"],
        "libs": ["lettuce-core", "amqp-client", "kafka-clients", "micrometer-registry-prometheus", "picocli"],
    },
    "backstage-operator": {
        "entrypoint": ["/opt/java/bin/java", "-cp",
                       "/opt/backstage/app/resources:/opt/backstage/app/classes:/opt/backstage/app/libs/*",
                       "dev.backstage.operator.main.OperatorMain"],
        "ports": {"8081/tcp", "8082/tcp", "8443/tcp"}, "env": {},
        "files": ["opt/backstage/app/classes/dev/backstage/operator/main/OperatorMain.class", "opt/java/bin/java"],
        "libs": ["operator-framework-core", "kubernetes-client", "worker-runtime", "bcpkix"],
    },
    "backstage-sample-tasks": {
        "entrypoint": ["/opt/java/bin/java", "-cp", RUNTIME_PATH, "dev.backstage.runtime.main.RuntimeMain"],
        "ports": {"8080/tcp"}, "env": {"BACKSTAGE_CONFIG": "/etc/backstage/runtime.yaml"},
        "files": ["opt/backstage/tasks/resources/META-INF/services/dev.backstage.runtime.api.TaskModule",
                  "opt/backstage/tasks/classes/dev/backstage/examples/orders/OrderTasks.class",
                  "opt/backstage/app/classes/dev/backstage/runtime/main/RuntimeMain.class"],
        "libs": ["lettuce-core"],
    },
}


def blob(root, digest):
    return os.path.join(root, "blobs", *digest.split(":"))


def read_image(tarball, work):
    root = os.path.join(work, os.path.basename(tarball))
    os.makedirs(root)
    with tarfile.open(tarball) as t:
        t.extractall(root, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(root)
    return root


def layer_members(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        return data, t.getmembers()


def check(name, tarball, work):
    print(f"\n== {name}: {tarball} ({os.path.getsize(tarball) // (1024 * 1024)} MiB)")
    want = EXPECTED[name]
    root = read_image(tarball, work)
    expect(os.path.exists(os.path.join(root, "oci-layout")), f"{name}: an OCI image layout (oci-layout, index.json)")
    index = json.load(open(os.path.join(root, "index.json")))
    (desc,) = index["manifests"]
    ref = desc.get("annotations", {}).get("org.opencontainers.image.ref.name", "")
    expect(ref.startswith(name + ":"), f"{name}: index names it {ref}")
    manifest = json.load(open(blob(root, desc["digest"])))
    config = json.load(open(blob(root, manifest["config"]["digest"])))
    corrupt = []
    for d in [desc, manifest["config"]] + manifest["layers"]:
        with open(blob(root, d["digest"]), "rb") as f:
            data = f.read()
        if "sha256:" + hashlib.sha256(data).hexdigest() != d["digest"] or len(data) != d["size"]:
            corrupt.append(d["digest"])
    expect(not corrupt, f"{name}: manifest, config and {len(manifest['layers'])} layers match their sha256 and size",
           str(corrupt))
    expect(config["os"] == "linux" and config["architecture"] == "amd64", f"{name}: linux/amd64")
    c = config["config"]
    expect(c.get("Entrypoint") == want["entrypoint"], f"{name}: entrypoint {' '.join(want['entrypoint'][:1] + want['entrypoint'][-1:])}",
           str(c.get("Entrypoint")))
    expect(not c.get("Cmd"), f"{name}: no Cmd appended to the entrypoint", str(c.get("Cmd")))
    expect(c.get("User") == NONROOT, f"{name}: runs as the numeric non-root user {NONROOT} (runAsNonRoot can verify it)",
           str(c.get("User")))
    env = dict(e.split("=", 1) for e in c.get("Env", []))
    want_env = {"JAVA_HOME": "/opt/java", "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError",
                **want["env"]}
    expect(want_env.items() <= env.items(), f"{name}: env {sorted(want_env)}", str(env))
    expect(set(c.get("ExposedPorts", {})) == want["ports"], f"{name}: exposes {sorted(want['ports'])}",
           str(c.get("ExposedPorts")))
    labels = c.get("Labels", {})
    expect(all(labels.get(k) for k in COMMON_LABELS) and labels["org.opencontainers.image.title"] == name
           and labels["org.opencontainers.image.version"] == ref.split(":", 1)[1],
           f"{name}: labels {', '.join(k.rsplit('.', 1)[1] for k in COMMON_LABELS)}", str(labels))

    files, layer_paths = {}, []
    for layer in manifest["layers"]:
        _, members = layer_members(blob(root, layer["digest"]))
        names = [m.name.lstrip("./") for m in members]
        layer_paths.append(names)
        for m in members:
            files[m.name.lstrip("./")] = m
    base = [i for i, names in enumerate(layer_paths) if "opt/java/bin/java" in names]
    app_layers = {kind: {i for i, names in enumerate(layer_paths)
                         if any(n.startswith(f"opt/backstage/{kind}") for n in names)} for kind in ("app/libs", "app/resources", "app/classes")}
    used = [i for v in app_layers.values() for i in v]
    expect(base == [0] and all(app_layers.values()) and 0 not in used and len(used) == len(set(used)),
           f"{name}: layers: JVM base first, then dependencies (released and snapshot apart), resources and classes "
           f"each in their own ({len(manifest['layers'])} layers)", f"base {base}, app {app_layers}")
    missing = [f for f in want["files"] if f not in files]
    expect(not missing, f"{name}: has {', '.join(os.path.basename(f) for f in want['files'])}", str(missing))
    libs = [n for n in files if n.startswith("opt/backstage/app/libs/") and n.endswith(".jar")]
    lacking = [l for l in want["libs"] if not any(os.path.basename(n).startswith(l) for n in libs)]
    expect(not lacking, f"{name}: {len(libs)} dependency jars, including {', '.join(want['libs'])}", str(lacking))
    found = sorted({why for n in files for path, why in FORBIDDEN.items() if n == path or n.startswith(path + "/")})
    expect(not found, f"{name}: no build tools or shell ({', '.join(sorted(set(FORBIDDEN.values())))})", str(found))
    sources = [n for n in files if n.endswith(".java")]
    tests = [n for n in files if n.endswith("Test.class") or "/junit" in n or "test-support" in n
             or "mockwebserver" in n or "kubernetes-server-mock" in n]
    expect(not sources and not tests, f"{name}: no sources, test classes or test libraries", str((sources + tests)[:5]))
    if name == "backstage-sample-tasks":
        dup = [n for n in files if n.startswith("opt/backstage/tasks/") and "worker-runtime" in n]
        task_layers = [i for i, names in enumerate(layer_paths) if any(n.startswith("opt/backstage/tasks/") for n in names)]
        expect(not dup and task_layers and min(task_layers) > max(used),
               f"{name}: the task module's layers come after the runtime's, without a copy of the runtime "
               "(worker-runtime in provided scope)", str(dup))
    return root, manifest, config


def unpack(root, manifest, target):
    for layer in manifest["layers"]:
        data, _ = layer_members(blob(root, layer["digest"]))
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            for m in t.getmembers():
                base = os.path.basename(m.name)
                if base.startswith(".wh."):  # OCI whiteout: delete what a lower layer had
                    victim = os.path.join(target, os.path.dirname(m.name), base[4:])
                    shutil.rmtree(victim, ignore_errors=True) if os.path.isdir(victim) else None
                    if os.path.lexists(victim):
                        os.remove(victim)
                    continue
                t.extract(m, target, set_attrs=False, **({"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}))
                path = os.path.join(target, m.name)
                if m.isfile() and not os.path.islink(path):
                    os.chmod(path, m.mode | 0o600)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except Exception as e:  # not up yet, or an HTTP error status
        return getattr(e, "code", None), str(e)


def run_sample_tasks(root, manifest, config, work):
    print("\n== backstage-sample-tasks: run the entrypoint from the image's own file system (chroot, user namespace)")
    if not shutil.which("unshare") or subprocess.run(["unshare", "-r", "true"]).returncode != 0:
        expect(False, "unprivileged user namespaces (unshare -r) are available for --run")
        return
    rootfs = os.path.join(work, "rootfs")
    os.makedirs(rootfs)
    unpack(root, manifest, rootfs)
    for d in ("proc", "dev"):
        os.makedirs(os.path.join(rootfs, d), exist_ok=True)
    prefix = "image-check-" + uuid.uuid4().hex[:8]
    port = free_port()
    with open(os.path.join(rootfs, "etc/backstage/runtime.yaml"), "w") as f:
        f.write(f"provider: {{name: redis, urlEnv: REDIS_URL, prefix: {prefix}}}\n"
                f"worker: {{queues: [default], concurrency: 2, shutdownGraceMs: 5000}}\nserver: {{port: {port}}}\n")
    c = config["config"]
    image_env = dict(e.split("=", 1) for e in c["Env"])
    image_env["REDIS_URL"] = os.environ.get("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379")
    image_env["HOSTNAME"] = "image-check"
    # JSON lines, as the chart's workers.logFormat=json sets it: the image's logging backend must write nothing else.
    image_env["BACKSTAGE_LOG_FORMAT"] = "json"
    # Host tools set up the namespace; the process in the image gets exactly the image's environment.
    mounts = (f"mount -t proc proc {rootfs}/proc && mount --rbind /dev {rootfs}/dev && "
              f"exec {shutil.which('env')} -i \"$@\"")
    chroot = shutil.which("chroot") or "/usr/sbin/chroot"

    def in_image(*argv, **kw):
        command = ["unshare", "-rmpf", "--mount-proc", "sh", "-c", mounts, "sh",
                   *[f"{k}={v}" for k, v in image_env.items()], chroot, rootfs, *argv]
        return subprocess.Popen(command, cwd=work, **kw)

    log = open(os.path.join(work, "worker.log"), "w")
    err = open(os.path.join(work, "worker.err"), "w")
    worker = in_image(*c["Entrypoint"], stdout=log, stderr=err, start_new_session=True)
    try:
        deadline = time.time() + 90
        while time.time() < deadline and http_get(f"http://127.0.0.1:{port}/readyz")[0] != 200 and worker.poll() is None:
            time.sleep(0.5)
        ready = http_get(f"http://127.0.0.1:{port}/readyz")
        if not expect(ready[0] == 200, "the image's entrypoint starts the worker: /readyz 200",
                      f"{ready}; log: {open(log.name).read()[-1500:]}"):
            return
        cli = in_image("/opt/java/bin/java", "-cp", RUNTIME_PATH, "dev.backstage.runtime.cli.BackstageCli", "enqueue",
                       "processOrder", '{"orderId":"image-check","amountCents":100,"card":"ok"}', "--prefix", prefix,
                       "--url", image_env["REDIS_URL"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, _ = cli.communicate(timeout=120)
        expect(cli.returncode == 0, "the image's JVM runs the CLI: enqueue processOrder", out.strip())
        metrics = ""
        while time.time() < deadline:
            metrics = http_get(f"http://127.0.0.1:{port}/metrics")[1]
            if "backstage_acks_total 2.0" in metrics:
                break
            time.sleep(0.5)
        expect("backstage_acks_total 2.0" in metrics and "backstage_chained_total 1.0" in metrics,
               "the worker in the image ran processOrder and the chained sendReceipt (acks 2, chained 1 on /metrics)",
               "\n".join(l for l in metrics.splitlines() if l.startswith("backstage_")))
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            code = worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            code = None
        expect(code == 0, "SIGTERM: the worker drains and exits 0", f"exit {code}; log: {open(log.name).read()[-800:]}")
        log.flush()
        check_json_log(open(log.name).read().splitlines(), open(err.name).read().splitlines())
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        log.close()
        err.close()
        if shutil.which("redis-cli"):
            keys = subprocess.run(["redis-cli", "--scan", "--pattern", prefix + "*"], capture_output=True, text=True).stdout.split()
            if keys:
                subprocess.run(["redis-cli", "del", *keys], capture_output=True)


def check_json_log(stdout, stderr):
    """BACKSTAGE_LOG_FORMAT=json: every stdout line one JSON object with the fields log pipelines read."""
    events, bad = [], []
    for line in stdout:
        try:
            event = json.loads(line)
            if not (isinstance(event, dict) and all(isinstance(event.get(k), str)
                                                    for k in ("timestamp", "level", "logger", "thread", "message"))):
                bad.append(line)
            events.append(event)
        except ValueError:
            bad.append(line)
    expect(stdout and not bad, f"BACKSTAGE_LOG_FORMAT=json: all {len(stdout)} stdout lines are JSON objects with "
           "timestamp, level, logger, thread, message", "\n".join(bad[:5]))
    messages = [e.get("message", "") for e in events if isinstance(e, dict)]
    expect(any(m.startswith("task modules:") for m in messages) and any(m.startswith("worker stopped") for m in messages),
           "the JSON log has the main's start-up and shutdown lines", str(messages[:8]))
    # The JVM itself announces JAVA_TOOL_OPTIONS (set by the image) on stderr before any Java code runs.
    other = [l for l in stderr if not l.startswith("Picked up JAVA_TOOL_OPTIONS:")]
    expect(not other, f"stderr holds only the JVM's own 'Picked up JAVA_TOOL_OPTIONS' line ({len(stderr)} lines)",
           "\n".join(other[:5]))


def main():
    directory = sys.argv[1]
    run = "--run" in sys.argv[2:]
    work = tempfile.mkdtemp(prefix="image-check.")
    try:
        images = {}
        for name in EXPECTED:
            tarball = os.path.join(directory, name + ".tar")
            if expect(os.path.exists(tarball), f"{tarball} exists"):
                images[name] = check(name, tarball, work)
        if run and "backstage-sample-tasks" in images:
            run_sample_tasks(*images["backstage-sample-tasks"], work)
    finally:
        subprocess.run(["unshare", "-r", "rm", "-rf", work], capture_output=True)  # files owned in the namespace
        shutil.rmtree(work, ignore_errors=True)
    print(f"\ncheck_images: {'all checks passed' if not FAILED else f'{len(FAILED)} FAILED'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
