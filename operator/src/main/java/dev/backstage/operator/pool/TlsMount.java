package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.TlsSpec;
import dev.backstage.operator.workload.WorkerContainer;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection's TLS Secrets projected into one read-only directory of the worker pod, files mode 0400: one per
 * connection role (the provider's, the delays backend's, the dedupe backend's) that has a CA bundle or a client
 * certificate.
 *
 * @param role the connection's role in runtime.yaml ({@link RuntimeConfigRenderer#PROVIDER_ROLE}, ...)
 * @param tls  the connection's TLS block
 */
record TlsMount(String role, TlsSpec tls) {
    /** The mounts the topology's connections need, provider first. */
    static List<TlsMount> of(BackstageTopologySpec broker) {
        List<TlsMount> mounts = new ArrayList<>();
        add(mounts, RuntimeConfigRenderer.PROVIDER_ROLE, broker.getTls());
        if (broker.getCapabilities() != null) {
            CapabilityBackend delays = broker.getCapabilities().getDelays();
            add(mounts, RuntimeConfigRenderer.DELAYS_ROLE, delays == null ? null : delays.getTls());
            CapabilityBackend dedupe = broker.getCapabilities().getDedupe();
            add(mounts, RuntimeConfigRenderer.DEDUPE_ROLE, dedupe == null ? null : dedupe.getTls());
        }
        return mounts;
    }

    private static void add(List<TlsMount> mounts, String role, TlsSpec tls) {
        if (tls != null && (tls.getCaBundle() != null || tls.getClientCertificateSecret() != null)) {
            mounts.add(new TlsMount(role, tls));
        }
    }

    String volumeName() {
        return "tls-" + role;
    }

    Volume volume() {
        List<VolumeProjection> sources = new ArrayList<>();
        if (tls.getCaBundle() != null) {
            String key = tls.getCaBundle().getKey() == null
                    ? WorkerContainer.CA_FILE
                    : tls.getCaBundle().getKey();
            sources.add(new VolumeProjectionBuilder()
                    .withNewSecret()
                    .withName(tls.getCaBundle().getSecretName())
                    .addNewItem()
                    .withKey(key)
                    .withPath(WorkerContainer.CA_FILE)
                    .withMode(WorkerContainer.TLS_FILE_MODE)
                    .endItem()
                    .endSecret()
                    .build());
        }
        if (tls.getClientCertificateSecret() != null) {
            sources.add(new VolumeProjectionBuilder()
                    .withNewSecret()
                    .withName(tls.getClientCertificateSecret())
                    .addNewItem()
                    .withKey(WorkerContainer.CERT_FILE)
                    .withPath(WorkerContainer.CERT_FILE)
                    .withMode(WorkerContainer.TLS_FILE_MODE)
                    .endItem()
                    .addNewItem()
                    .withKey(WorkerContainer.KEY_FILE)
                    .withPath(WorkerContainer.KEY_FILE)
                    .withMode(WorkerContainer.TLS_FILE_MODE)
                    .endItem()
                    .endSecret()
                    .build());
        }
        return new VolumeBuilder()
                .withName(volumeName())
                .withNewProjected()
                .withDefaultMode(WorkerContainer.TLS_FILE_MODE)
                .withSources(sources)
                .endProjected()
                .build();
    }

    VolumeMount volumeMount() {
        return new VolumeMountBuilder()
                .withName(volumeName())
                .withMountPath(WorkerContainer.tlsDir(role))
                .withReadOnly(true)
                .build();
    }
}
