package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.PodOverrides;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.workload.PoolResources;
import dev.backstage.operator.workload.WorkerContainer;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker pod of a pool: the runtime container (the image's own entrypoint reading the mounted
 * {@code runtime.yaml}, connection URLs from Secrets, the probes), its volumes and its hardening, with the user's
 * pod overrides. Pure rendering: the Deployment around it is {@link PoolDeploymentDependent}'s.
 */
final class WorkerPodSpec {
    static final String CONFIG_VOLUME = "runtime-config";
    static final String TMP_VOLUME = "tmp";

    private WorkerPodSpec() {}

    static PodSpec of(BackstageWorkerPool pool, PoolPlan plan, PodOverrides overrides) {
        long graceMs = RuntimeConfigRenderer.shutdownGrace(pool).toMillis();
        long grace = (graceMs + 999) / 1000 + WorkerContainer.TERMINATION_MARGIN_SECONDS;
        PodSpecBuilder builder = new PodSpecBuilder()
                .withContainers(container(pool, plan))
                .withTerminationGracePeriodSeconds(grace)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .addNewVolume()
                .withName(CONFIG_VOLUME)
                .withNewConfigMap()
                .withName(PoolResources.configMapName(pool))
                .endConfigMap()
                .endVolume()
                .addNewVolume()
                .withName(TMP_VOLUME)
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .withNodeSelector(overrides.getNodeSelector())
                .withServiceAccountName(overrides.getServiceAccountName())
                .withPriorityClassName(overrides.getPriorityClassName());
        List<TlsMount> tls = TlsMount.of(plan.topology().getSpec());
        for (TlsMount mount : tls) {
            builder.addToVolumes(mount.volume());
        }
        if (!tls.isEmpty()) {
            // Secret files are root's; with an fsGroup the kubelet makes them readable by that group, i.e. the
            // runtime image's non-root user (the files keep no other permission).
            builder.editSecurityContext()
                    .withFsGroup(WorkerContainer.RUNTIME_GID)
                    .endSecurityContext();
        }
        // Workers talk to brokers, not to the API server: no token unless the user picked an account on purpose.
        if (overrides.getServiceAccountName() == null) {
            builder.withAutomountServiceAccountToken(false);
        }
        if (overrides.getTolerations() != null) {
            overrides.getTolerations().forEach(t -> builder.addToTolerations(new TolerationBuilder(t).build()));
        }
        if (overrides.getAffinity() != null) {
            builder.withAffinity(new AffinityBuilder(overrides.getAffinity()).build());
        }
        if (overrides.getImagePullSecrets() != null) {
            overrides
                    .getImagePullSecrets()
                    .forEach(s -> builder.addToImagePullSecrets(new LocalObjectReferenceBuilder(s).build()));
        }
        return builder.build();
    }

    private static Container container(BackstageWorkerPool pool, PoolPlan plan) {
        BackstageWorkerPoolSpec spec = pool.getSpec();
        ContainerBuilder builder = new ContainerBuilder()
                .withName(WorkerContainer.NAME)
                .withImage(spec.getImage())
                .withImagePullPolicy(spec.getImagePullPolicy())
                .addNewPort()
                .withName(WorkerContainer.HTTP_PORT_NAME)
                .withContainerPort(WorkerContainer.HTTP_PORT)
                .withProtocol("TCP")
                .endPort()
                .withEnv(env(pool, plan))
                .addNewVolumeMount()
                .withName(CONFIG_VOLUME)
                .withMountPath(WorkerContainer.CONFIG_DIR)
                .withReadOnly(true)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(TMP_VOLUME)
                .withMountPath("/tmp")
                .endVolumeMount()
                .addAllToVolumeMounts(TlsMount.of(plan.topology().getSpec()).stream()
                        .map(TlsMount::volumeMount)
                        .toList())
                // A slow start (JVM, broker connections) gets up to a minute before liveness may restart it.
                .withStartupProbe(probe(WorkerContainer.LIVENESS_PATH, 2, 30))
                .withLivenessProbe(probe(WorkerContainer.LIVENESS_PATH, 10, 3))
                .withReadinessProbe(probe(WorkerContainer.READINESS_PATH, 5, 3))
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext();
        if (spec.getEnvFrom() != null) {
            spec.getEnvFrom().forEach(e -> builder.addToEnvFrom(new EnvFromSourceBuilder(e).build()));
        }
        if (spec.getResources() != null) {
            builder.withResources(new ResourceRequirementsBuilder(spec.getResources()).build());
        }
        return builder.build();
    }

    /**
     * The operator's env first (config path, pod name, connection URLs from Secrets, log level and format), then the
     * user's.
     */
    private static List<EnvVar> env(BackstageWorkerPool pool, PoolPlan plan) {
        BackstageTopologySpec broker = plan.topology().getSpec();
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder()
                .withName(WorkerContainer.CONFIG_ENV)
                .withValue(WorkerContainer.CONFIG_PATH)
                .build());
        // apiVersion spelled out: fieldRef is an atomic struct for server-side apply, so the API server's default
        // (v1) is recorded as ours, and without it here every reconcile saw a difference, applied the Deployment
        // again and told the user "DeploymentUpdated" (3-4 times per pool in bin/bench operator-scale).
        env.add(new EnvVarBuilder()
                .withName(WorkerContainer.POD_NAME_ENV)
                .withNewValueFrom()
                .withNewFieldRef()
                .withApiVersion("v1")
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .build());
        env.add(secretEnv(WorkerContainer.PROVIDER_URL_ENV, broker.getConnection()));
        if (broker.getCapabilities() != null) {
            CapabilityBackend delays = broker.getCapabilities().getDelays();
            if (delays != null) {
                env.add(secretEnv(WorkerContainer.DELAYS_URL_ENV, delays.getConnection()));
            }
            CapabilityBackend dedupe = broker.getCapabilities().getDedupe();
            if (dedupe != null) {
                env.add(secretEnv(WorkerContainer.DEDUPE_URL_ENV, dedupe.getConnection()));
            }
        }
        List<EnvVar> own =
                pool.getSpec().getEnv() == null ? List.of() : pool.getSpec().getEnv();
        // The operator's log level and format for workers, unless the pool sets them itself (one entry per name:
        // server-side apply refuses an env list with a name twice).
        plan.workerLogging().toEnv().forEach((name, value) -> {
            if (own.stream().noneMatch(e -> name.equals(e.getName()))) {
                env.add(new EnvVarBuilder().withName(name).withValue(value).build());
            }
        });
        own.forEach(e -> env.add(new EnvVarBuilder(e).build()));
        return env;
    }

    private static EnvVar secretEnv(String name, SecretKeyReference ref) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewSecretKeyRef()
                .withName(ref.getSecretName())
                .withKey(ref.getKey() == null ? "url" : ref.getKey())
                .endSecretKeyRef()
                .endValueFrom()
                .build();
    }

    private static Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString(WorkerContainer.HTTP_PORT_NAME))
                .endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(2)
                .withFailureThreshold(failureThreshold)
                .build();
    }
}
