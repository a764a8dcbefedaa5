#!/usr/bin/env python3
"""Assembles the images' base without a Docker daemon or a registry: a `docker save`-format tarball (what Jib's
`tar://` base reads and `docker load` / `podman load` / `ctr images import` accept) holding one layer with

  /opt/java                a jlink'd Java runtime from this machine's JDK (only the modules the runtime and the
                           operator use), with its own cacerts;
  /lib, /lib64, /usr/lib   exactly the shared libraries that runtime links against (found with ldd), copied from
                           this machine (Debian's glibc, libstdc++, zlib);
  /etc/passwd, /etc/group  root and nonroot (65532:65532), the user the images run as;
  /tmp                     world-writable, sticky.

The tarball is reproducible: entries sorted, owned by root, mtime 0.

Usage: base_image.py <jdk home> <output tar> <image name:tag>
"""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

# What the worker runtime (lettuce/netty, amqp-client, kafka-clients, Jackson, Micrometer, the JDK HTTP server)
# and the operator (fabric8 with the JDK HTTP client, JOSDK, Bouncy Castle) load. No java.desktop: it would pull
# in X11, fonts and sound libraries.
MODULES = ["java.base", "java.logging", "java.management", "java.naming", "java.net.http", "java.security.jgss",
           "java.security.sasl", "java.sql", "java.xml", "java.instrument", "jdk.crypto.ec", "jdk.crypto.cryptoki",
           "jdk.unsupported", "jdk.management", "jdk.httpserver", "jdk.naming.dns", "jdk.zipfs"]
NONROOT = 65532


def jlink(jdk, out):
    subprocess.run([os.path.join(jdk, "bin", "jlink"), "--add-modules", ",".join(MODULES), "--strip-debug",
                    "--no-man-pages", "--no-header-files", "--compress=2", "--output", out], check=True)


def linked_libraries(java_home):
    """Absolute paths of the shared libraries outside java_home that its binaries and libraries need."""
    needed = set()
    for base, _, files in os.walk(java_home):
        for name in files:
            path = os.path.join(base, name)
            if not (name.endswith(".so") or base.endswith("/bin")):
                continue
            env = dict(os.environ, LD_LIBRARY_PATH=f"{java_home}/lib:{java_home}/lib/server")
            result = subprocess.run(["ldd", path], capture_output=True, text=True, env=env)
            for line in result.stdout.splitlines():
                parts = line.split()
                if "not found" in line:
                    raise SystemExit(f"base_image: {path} needs {parts[0]}, which this machine lacks")
                for token in parts:
                    if token.startswith("/") and not token.startswith(java_home):
                        needed.add(token)
    return needed


def add_tree(tar, source, target):
    entries = []
    for base, dirs, files in os.walk(source):
        dirs.sort()
        rel = os.path.relpath(base, source)
        entries.append((base, os.path.normpath(os.path.join(target, rel))))
        for name in sorted(files):
            entries.append((os.path.join(base, name), os.path.normpath(os.path.join(target, rel, name))))
    return entries


def layer_tar(rootfs_entries, files):
    """rootfs_entries: [(host path or None for a directory, path in image, mode or None)]; files: {path: bytes}."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        items = sorted(set(rootfs_entries), key=lambda e: e[1])
        made_dirs = set()

        def ensure_parents(path):
            parts = path.strip("/").split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in made_dirs:
                    made_dirs.add(d)
                    info = tarfile.TarInfo(d)
                    info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
                    tar.addfile(info)

        for host, image_path, mode in items:
            name = image_path.strip("/")
            ensure_parents(image_path)
            if host is None or os.path.isdir(host):
                if name in made_dirs:
                    continue
                made_dirs.add(name)
                info = tarfile.TarInfo(name)
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, mode or 0o755, 0
                tar.addfile(info)
            else:
                info = tarfile.TarInfo(name)
                info.mode = mode or (os.stat(host).st_mode & 0o777)
                info.mtime = 0
                with open(host, "rb") as f:
                    data = f.read()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        for path, data in sorted(files.items()):
            ensure_parents(path)
            info = tarfile.TarInfo(path.strip("/"))
            info.mode, info.mtime, info.size = 0o644, 0, len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def main():
    jdk, output, name = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="backstage-base.")
    try:
        java_home = os.path.join(work, "java")
        jlink(jdk, java_home)
        entries = [(h, p, None) for h, p in add_tree(None, java_home, "/opt/java")]
        for lib in sorted(linked_libraries(java_home)):
            entries.append((os.path.realpath(lib), lib, None))  # the file itself under the name the loader asks for
        entries.append((None, "/tmp", 0o1777))
        for d in ("/etc/backstage", "/opt/backstage"):
            entries.append((None, d, 0o755))
        files = {
            "/etc/passwd": f"root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:{NONROOT}:{NONROOT}:nonroot:/nonexistent:/sbin/nologin\n".encode(),
            "/etc/group": f"root:x:0:\nnonroot:x:{NONROOT}:\n".encode(),
            "/etc/nsswitch.conf": b"passwd: files\ngroup: files\nhosts: files dns\n",
        }
        layer = layer_tar(entries, files)
        diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
        config = {
            "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
            "config": {"Env": ["PATH=/opt/java/bin:/usr/bin:/bin", "JAVA_HOME=/opt/java", "LANG=C.UTF-8"],
                       "User": f"{NONROOT}:{NONROOT}", "WorkingDir": "/opt/backstage",
                       "Labels": {"org.opencontainers.image.description":
                                  "Java runtime (jlink, " + open(os.path.join(java_home, "release")).read()
                                  .split('JAVA_VERSION="')[1].split('"')[0] + ") and its libraries, for Backstage images"}},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "tools/images/base_image.py"}],
        }
        config_bytes = json.dumps(config, sort_keys=True).encode()
        config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
        layer_name = diff_id.split(":")[1] + "/layer.tar"
        manifest = [{"Config": config_name, "RepoTags": [name], "Layers": [layer_name]}]
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        with tarfile.open(output, "w", format=tarfile.PAX_FORMAT) as out:
            for path, data in ((config_name, config_bytes), (layer_name, layer),
                               ("manifest.json", json.dumps(manifest).encode())):
                info = tarfile.TarInfo(path)
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                out.addfile(info, io.BytesIO(data))
        print(f"base_image: {output} ({name}): {len(layer) // (1024 * 1024)} MiB layer, {len(entries)} entries, "
              f"java {config['config']['Labels']['org.opencontainers.image.description']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
