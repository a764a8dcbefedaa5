package dev.backstage.e2e.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Does for a local process what the kubelet does for a container: resolves env (values, the downward API,
 * Secret and ConfigMap keys, {@code envFrom}) and materialises volumes (ConfigMap, Secret, projected — the
 * service-account token by TokenRequest bound to the pod, {@code kube-root-ca.crt}, the namespace — downward
 * API, emptyDir) as files under the pod's own directory, mapping each mount path there. A container cannot be
 * chrooted, so env values under a mount path are rewritten to the local directory, and {@link #mounts} says
 * where each mount went (the node agent points the Kubernetes client's service-account settings there).
 *
 * <p>Kept as one class: env and volumes resolve against the same pod and the same mount map (env values under a mount
 * path are rewritten through it), as the kubelet does in one pass.
 */
public final class PodSpecResolver {
    private final KubernetesClient client;
    private final String namespace;
    private final Map<String, String> mounts = new LinkedHashMap<>();

    public PodSpecResolver(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The environment for a container of the mock sandbox (no pod object, only its name). */
    Map<String, String> resolve(PodSpec spec, Container container, String podName, Path podDir) {
        Pod pod = new Pod();
        pod.setMetadata(new ObjectMeta());
        pod.getMetadata().setName(podName);
        pod.getMetadata().setNamespace(namespace);
        pod.setSpec(spec);
        return resolve(pod, container, podDir, "127.0.0.1");
    }

    /**
     * The environment for {@code container} of {@code pod}, with its volumes written under {@code podDir} and
     * values under a mount path pointing there.
     *
     * @throws IllegalStateException naming what is missing (a Secret, a ConfigMap, a key, a volume)
     */
    public Map<String, String> resolve(Pod pod, Container container, Path podDir, String podIp) {
        materialiseVolumes(pod, container, podDir);
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvFromSource from : nonNull(container.getEnvFrom())) {
            String prefix = from.getPrefix() == null ? "" : from.getPrefix();
            if (from.getConfigMapRef() != null) {
                ConfigMap map = configMap(
                        from.getConfigMapRef().getName(),
                        Boolean.TRUE.equals(from.getConfigMapRef().getOptional()));
                if (map != null && map.getData() != null) {
                    map.getData().forEach((k, v) -> env.put(prefix + k, v));
                }
            }
            if (from.getSecretRef() != null) {
                Secret secret = secret(
                        from.getSecretRef().getName(),
                        Boolean.TRUE.equals(from.getSecretRef().getOptional()));
                if (secret != null) {
                    secretData(secret).forEach((k, v) -> env.put(prefix + k, new String(v, StandardCharsets.UTF_8)));
                }
            }
        }
        for (EnvVar var : nonNull(container.getEnv())) {
            String value = value(var, pod, podIp);
            if (value != null) {
                env.put(var.getName(), rewriteMountPath(value));
            }
        }
        return env;
    }

    /** Mount path → the local directory that holds it, for the volumes the last {@code resolve} wrote. */
    public Map<String, String> mounts() {
        return Map.copyOf(mounts);
    }

    /** A value under a mount path now points into the pod's own directory (the longest mount wins, once). */
    private String rewriteMountPath(String value) {
        String best = null;
        for (String mountPath : mounts.keySet()) {
            if ((value.equals(mountPath) || value.startsWith(mountPath + "/"))
                    && (best == null || mountPath.length() > best.length())) {
                best = mountPath;
            }
        }
        return best == null ? value : mounts.get(best) + value.substring(best.length());
    }

    private String value(EnvVar var, Pod pod, String podIp) {
        if (var.getValue() != null) {
            return var.getValue();
        }
        if (var.getValueFrom() == null) {
            return "";
        }
        var from = var.getValueFrom();
        if (from.getFieldRef() != null) {
            return field(pod, from.getFieldRef().getFieldPath(), podIp);
        }
        if (from.getSecretKeyRef() != null) {
            var ref = from.getSecretKeyRef();
            Secret secret = secret(ref.getName(), Boolean.TRUE.equals(ref.getOptional()));
            byte[] bytes = secret == null ? null : secretData(secret).get(ref.getKey());
            if (bytes == null && !Boolean.TRUE.equals(ref.getOptional())) {
                throw new IllegalStateException("secret " + ref.getName() + " has no key " + ref.getKey());
            }
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }
        if (from.getConfigMapKeyRef() != null) {
            var ref = from.getConfigMapKeyRef();
            ConfigMap map = configMap(ref.getName(), Boolean.TRUE.equals(ref.getOptional()));
            String value =
                    map == null || map.getData() == null ? null : map.getData().get(ref.getKey());
            if (value == null && !Boolean.TRUE.equals(ref.getOptional())) {
                throw new IllegalStateException("configmap " + ref.getName() + " has no key " + ref.getKey());
            }
            return value;
        }
        return null;
    }

    private String field(Pod pod, String path, String podIp) {
        ObjectMeta meta = pod.getMetadata();
        return switch (path) {
            case "metadata.name" -> meta.getName();
            case "metadata.namespace" -> namespace;
            case "metadata.uid" -> meta.getUid();
            case "spec.nodeName" -> pod.getSpec().getNodeName();
            case "spec.serviceAccountName" -> pod.getSpec().getServiceAccountName();
            case "status.podIP", "status.hostIP" -> podIp;
            default -> {
                if (path.startsWith("metadata.labels['") && meta.getLabels() != null) {
                    yield meta.getLabels().get(path.substring(17, path.length() - 2));
                }
                if (path.startsWith("metadata.annotations['") && meta.getAnnotations() != null) {
                    yield meta.getAnnotations().get(path.substring(22, path.length() - 2));
                }
                throw new IllegalStateException("downward API field " + path + " is not supported by this node");
            }
        };
    }

    private ConfigMap configMap(String name, boolean optional) {
        ConfigMap map =
                client.configMaps().inNamespace(namespace).withName(name).get();
        if (map == null && !optional) {
            throw new IllegalStateException("configmap " + name + " not found");
        }
        return map;
    }

    private Secret secret(String name, boolean optional) {
        Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
        if (secret == null && !optional) {
            throw new IllegalStateException("secret " + name + " not found");
        }
        return secret;
    }

    private static Map<String, byte[]> secretData(Secret secret) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        if (secret.getData() != null) {
            secret.getData().forEach((k, v) -> out.put(k, Base64.getDecoder().decode(v)));
        }
        if (secret.getStringData() != null) {
            secret.getStringData().forEach((k, v) -> out.put(k, v.getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    /** Writes each mounted volume under podDir/volumes/NAME and records mountPath → that directory. */
    private void materialiseVolumes(Pod pod, Container container, Path podDir) {
        mounts.clear();
        PodSpec spec = pod.getSpec();
        for (VolumeMount mount : nonNull(container.getVolumeMounts())) {
            if (mount.getSubPath() != null && !mount.getSubPath().isEmpty()) {
                throw new IllegalStateException(
                        "volume mount " + mount.getName() + " uses subPath, which this node does not support");
            }
            Volume volume = nonNull(spec.getVolumes()).stream()
                    .filter(v -> v.getName().equals(mount.getName()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no volume " + mount.getName()));
            Path dir = podDir.resolve("volumes").resolve(mount.getName());
            try {
                Files.createDirectories(dir);
                if (volume.getConfigMap() != null) {
                    var source = volume.getConfigMap();
                    ConfigMap map = configMap(source.getName(), Boolean.TRUE.equals(source.getOptional()));
                    writeItems(
                            dir,
                            map == null ? Map.of() : stringsToBytes(map.getData()),
                            source.getItems(),
                            source.getDefaultMode());
                } else if (volume.getSecret() != null) {
                    var source = volume.getSecret();
                    Secret secret = secret(source.getSecretName(), Boolean.TRUE.equals(source.getOptional()));
                    writeItems(
                            dir,
                            secret == null ? Map.of() : secretData(secret),
                            source.getItems(),
                            source.getDefaultMode());
                } else if (volume.getProjected() != null) {
                    for (VolumeProjection projection :
                            nonNull(volume.getProjected().getSources())) {
                        project(pod, projection, dir, volume.getProjected().getDefaultMode());
                    }
                } else if (volume.getDownwardAPI() != null) {
                    for (var item : nonNull(volume.getDownwardAPI().getItems())) {
                        write(
                                dir.resolve(item.getPath()),
                                field(pod, item.getFieldRef().getFieldPath(), "127.0.0.1")
                                        .getBytes(StandardCharsets.UTF_8),
                                volume.getDownwardAPI().getDefaultMode());
                    }
                } else if (volume.getEmptyDir() == null) {
                    throw new IllegalStateException(
                            "volume " + volume.getName() + " has a type this node does not support "
                                    + "(configMap, secret, projected, downwardAPI and emptyDir are)");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            mounts.put(mount.getMountPath(), dir.toString());
        }
    }

    private void project(Pod pod, VolumeProjection projection, Path dir, Integer mode) throws IOException {
        if (projection.getServiceAccountToken() != null) {
            var source = projection.getServiceAccountToken();
            TokenRequest request = new TokenRequestBuilder()
                    .withNewSpec()
                    .withAudiences(source.getAudience() == null ? List.of() : List.of(source.getAudience()))
                    .withExpirationSeconds(source.getExpirationSeconds())
                    .withNewBoundObjectRef()
                    .withApiVersion("v1")
                    .withKind("Pod")
                    .withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid())
                    .endBoundObjectRef()
                    .endSpec()
                    .build();
            String account = pod.getSpec().getServiceAccountName() == null
                    ? "default"
                    : pod.getSpec().getServiceAccountName();
            TokenRequest issued = client.serviceAccounts()
                    .inNamespace(namespace)
                    .withName(account)
                    .tokenRequest(request);
            write(dir.resolve(source.getPath()), issued.getStatus().getToken().getBytes(StandardCharsets.UTF_8), mode);
        }
        if (projection.getConfigMap() != null) {
            var source = projection.getConfigMap();
            ConfigMap map = configMap(source.getName(), Boolean.TRUE.equals(source.getOptional()));
            writeItems(dir, map == null ? Map.of() : stringsToBytes(map.getData()), source.getItems(), mode);
        }
        if (projection.getSecret() != null) {
            var source = projection.getSecret();
            Secret secret = secret(source.getName(), Boolean.TRUE.equals(source.getOptional()));
            writeItems(dir, secret == null ? Map.of() : secretData(secret), source.getItems(), mode);
        }
        if (projection.getDownwardAPI() != null) {
            for (var item : nonNull(projection.getDownwardAPI().getItems())) {
                write(
                        dir.resolve(item.getPath()),
                        field(pod, item.getFieldRef().getFieldPath(), "127.0.0.1")
                                .getBytes(StandardCharsets.UTF_8),
                        mode);
            }
        }
    }

    private static Map<String, byte[]> stringsToBytes(Map<String, String> data) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        if (data != null) {
            data.forEach((k, v) -> out.put(k, v.getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    private static void writeItems(Path dir, Map<String, byte[]> data, List<KeyToPath> items, Integer mode)
            throws IOException {
        if (items == null || items.isEmpty()) {
            for (Map.Entry<String, byte[]> e : data.entrySet()) {
                write(dir.resolve(e.getKey()), e.getValue(), mode);
            }
            return;
        }
        for (KeyToPath item : items) {
            byte[] bytes = data.get(item.getKey());
            if (bytes == null) {
                throw new IllegalStateException("volume item " + item.getKey() + " not found");
            }
            write(dir.resolve(item.getPath()), bytes, item.getMode() != null ? item.getMode() : mode);
        }
    }

    /** Writes a file with the volume's mode (owner bits only: every pod runs as this machine's user). */
    private static void write(Path file, byte[] bytes, Integer mode) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
        int m = mode == null ? 0644 : mode;
        Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        if ((m & 0400) != 0 || (m & 0040) != 0) {
            perms.add(PosixFilePermission.OWNER_READ);
        }
        if ((m & 0200) != 0) {
            perms.add(PosixFilePermission.OWNER_WRITE);
        }
        Files.setPosixFilePermissions(file, perms);
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }
}
