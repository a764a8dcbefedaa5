package dev.backstage.e2e.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Does for a local process what the kubelet does for a container: resolves env (values, Secret keys, the
 * pod's name) and materialises ConfigMap volumes as files, mapping each mount path into a directory of
 * the pod's own.
 */
final class PodSpecResolver {
    private final KubernetesClient client;
    private final String namespace;

    PodSpecResolver(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The environment for the container, with mount paths rewritten into {@code podDir}. */
    Map<String, String> resolve(PodSpec spec, Container container, String podName, Path podDir) {
        Map<String, String> mounts = materialiseVolumes(spec, container, podDir);
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar var : container.getEnv() == null ? java.util.List.<EnvVar>of() : container.getEnv()) {
            String value = value(var, podName);
            if (value != null) {
                value = rewriteMountPath(value, mounts);
                env.put(var.getName(), value);
            }
        }
        return env;
    }

    /** A value under a mount path now points into the pod's own directory (the longest mount wins, once). */
    private static String rewriteMountPath(String value, Map<String, String> mounts) {
        String best = null;
        for (String mountPath : mounts.keySet()) {
            if ((value.equals(mountPath) || value.startsWith(mountPath + "/"))
                    && (best == null || mountPath.length() > best.length())) {
                best = mountPath;
            }
        }
        return best == null ? value : mounts.get(best) + value.substring(best.length());
    }

    private String value(EnvVar var, String podName) {
        if (var.getValue() != null) {
            return var.getValue();
        }
        if (var.getValueFrom() == null) {
            return null;
        }
        var from = var.getValueFrom();
        if (from.getFieldRef() != null) {
            return switch (from.getFieldRef().getFieldPath()) {
                case "metadata.name" -> podName;
                case "metadata.namespace" -> namespace;
                default -> null;
            };
        }
        if (from.getSecretKeyRef() != null) {
            Secret secret = client.secrets().inNamespace(namespace).withName(from.getSecretKeyRef().getName()).get();
            String key = from.getSecretKeyRef().getKey();
            if (secret == null) {
                throw new IllegalStateException("secret " + from.getSecretKeyRef().getName() + " not found");
            }
            if (secret.getStringData() != null && secret.getStringData().containsKey(key)) {
                return secret.getStringData().get(key);
            }
            if (secret.getData() != null && secret.getData().containsKey(key)) {
                return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
            }
            throw new IllegalStateException("secret " + from.getSecretKeyRef().getName() + " has no key " + key);
        }
        return null;
    }

    /** Writes ConfigMap volumes under podDir; returns mountPath → local directory. */
    private Map<String, String> materialiseVolumes(PodSpec spec, Container container, Path podDir) {
        Map<String, String> mounts = new LinkedHashMap<>();
        if (container.getVolumeMounts() == null) {
            return mounts;
        }
        for (VolumeMount mount : container.getVolumeMounts()) {
            Volume volume = spec.getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no volume " + mount.getName()));
            Path dir = podDir.resolve("volumes").resolve(mount.getName());
            try {
                Files.createDirectories(dir);
                if (volume.getConfigMap() != null) {
                    ConfigMap map = client.configMaps().inNamespace(namespace).withName(volume.getConfigMap().getName()).get();
                    if (map == null) {
                        throw new IllegalStateException("configmap " + volume.getConfigMap().getName() + " not found");
                    }
                    for (Map.Entry<String, String> file : map.getData().entrySet()) {
                        Files.writeString(dir.resolve(file.getKey()), file.getValue());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            mounts.put(mount.getMountPath(), dir.toString());
        }
        return mounts;
    }
}
