package dev.backstage.operator.pool;

import dev.backstage.operator.workload.PoolResources;
import dev.backstage.operator.workload.WorkerContainer;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.PodOverrides;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.TlsSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
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
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pool's workers: a Deployment of the pool's image running the runtime main (the image's own entrypoint),
 * reading the mounted {@code runtime.yaml} and connection URLs from Secrets. Owned by the pool; drift is
 * overwritten on the next reconcile. Updates that change nothing the pool reads start no reconcile
 * ({@link DeploymentChangeFilter}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolResources.MANAGED_SELECTOR,
        onUpdateFilter = DeploymentChangeFilter.class))
public class PoolDeploymentDependent extends CRUDKubernetesDependentResource<Deployment, BackstageWorkerPool> {
    private final MatchMemo<Deployment> matched = new MatchMemo<>(d -> new DeploymentBuilder(d).build());
    static final String CONFIG_VOLUME = "runtime-config";
    static final String TMP_VOLUME = "tmp";

    public PoolDeploymentDependent() {
        super(Deployment.class);
    }

    @Override
    protected Deployment desired(BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        PoolPlan plan = PoolPlan.from(context);
        BackstageWorkerPoolSpec spec = pool.getSpec();
        PodOverrides overrides = spec.getPod() == null ? new PodOverrides() : spec.getPod();

        Map<String, String> podLabels = new LinkedHashMap<>();
        if (overrides.getLabels() != null) {
            podLabels.putAll(overrides.getLabels());
        }
        podLabels.putAll(PoolResources.labels(pool));
        Map<String, String> podAnnotations = new LinkedHashMap<>();
        if (overrides.getAnnotations() != null) {
            podAnnotations.putAll(overrides.getAnnotations());
        }
        podAnnotations.put(PoolResources.CONFIG_HASH_ANNOTATION, plan.configHash());

        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(PoolResources.deploymentName(pool))
                .withNamespace(pool.getMetadata().getNamespace())
                .withLabels(PoolResources.labels(pool))
                .withOwnerReferences(PoolResources.controllerReference(pool))
                .endMetadata()
                .withNewSpec()
                .withReplicas(plan.replicas())
                .withStrategy(RolloutStrategy.rollingUpdate())
                .withNewSelector().withMatchLabels(PoolResources.selector(pool)).endSelector()
                .withNewTemplate()
                .withNewMetadata().withLabels(podLabels).withAnnotations(podAnnotations).endMetadata()
                .withSpec(podSpec(pool, plan, overrides))
                .endTemplate()
                .endSpec()
                .build();
    }

    private static PodSpec podSpec(BackstageWorkerPool pool, PoolPlan plan, PodOverrides overrides) {
        long graceMs = RuntimeConfigRenderer.shutdownGrace(pool).toMillis();
        long grace = (graceMs + 999) / 1000 + WorkerContainer.TERMINATION_MARGIN_SECONDS;
        PodSpecBuilder builder = new PodSpecBuilder()
                .withContainers(container(pool, plan))
                .withTerminationGracePeriodSeconds(grace)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .addNewVolume()
                .withName(CONFIG_VOLUME)
                .withNewConfigMap().withName(PoolResources.configMapName(pool)).endConfigMap()
                .endVolume()
                .addNewVolume()
                .withName(TMP_VOLUME)
                .withNewEmptyDir().endEmptyDir()
                .endVolume()
                .withNodeSelector(overrides.getNodeSelector())
                .withServiceAccountName(overrides.getServiceAccountName())
                .withPriorityClassName(overrides.getPriorityClassName());
        List<TlsMount> tls = tlsMounts(plan.topology().getSpec());
        for (TlsMount mount : tls) {
            builder.addToVolumes(mount.volume());
        }
        if (!tls.isEmpty()) {
            // Secret files are root's; with an fsGroup the kubelet makes them readable by that group, i.e. the
            // runtime image's non-root user (the files keep no other permission).
            builder.editSecurityContext().withFsGroup(WorkerContainer.RUNTIME_GID).endSecurityContext();
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
            overrides.getImagePullSecrets()
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
                // A slow start (JVM, broker connections) gets up to a minute before liveness may restart it.
                .addAllToVolumeMounts(tlsMounts(plan.topology().getSpec()).stream().map(TlsMount::volumeMount).toList())
                .withStartupProbe(probe(WorkerContainer.LIVENESS_PATH, 2, 30))
                .withLivenessProbe(probe(WorkerContainer.LIVENESS_PATH, 10, 3))
                .withReadinessProbe(probe(WorkerContainer.READINESS_PATH, 5, 3))
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
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
        env.add(new EnvVarBuilder().withName(WorkerContainer.CONFIG_ENV).withValue(WorkerContainer.CONFIG_PATH).build());
        // apiVersion spelled out: fieldRef is an atomic struct for server-side apply, so the API server's default
        // (v1) is recorded as ours, and without it here every reconcile saw a difference, applied the Deployment
        // again and told the user "DeploymentUpdated" (3-4 times per pool in bin/bench operator-scale).
        env.add(new EnvVarBuilder().withName(WorkerContainer.POD_NAME_ENV)
                .withNewValueFrom().withNewFieldRef().withApiVersion("v1").withFieldPath("metadata.name").endFieldRef()
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
        List<EnvVar> own = pool.getSpec().getEnv() == null ? List.of() : pool.getSpec().getEnv();
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

    /** A connection's TLS Secrets projected into one read-only directory, files mode 0400. */
    private record TlsMount(String role, TlsSpec tls) {
        String volumeName() {
            return "tls-" + role;
        }

        Volume volume() {
            List<VolumeProjection> sources = new ArrayList<>();
            if (tls.getCaBundle() != null) {
                String key = tls.getCaBundle().getKey() == null ? WorkerContainer.CA_FILE : tls.getCaBundle().getKey();
                sources.add(new VolumeProjectionBuilder().withNewSecret().withName(tls.getCaBundle().getSecretName())
                        .addNewItem().withKey(key).withPath(WorkerContainer.CA_FILE).withMode(WorkerContainer.TLS_FILE_MODE)
                        .endItem().endSecret().build());
            }
            if (tls.getClientCertificateSecret() != null) {
                sources.add(new VolumeProjectionBuilder().withNewSecret().withName(tls.getClientCertificateSecret())
                        .addNewItem().withKey(WorkerContainer.CERT_FILE).withPath(WorkerContainer.CERT_FILE)
                        .withMode(WorkerContainer.TLS_FILE_MODE).endItem()
                        .addNewItem().withKey(WorkerContainer.KEY_FILE).withPath(WorkerContainer.KEY_FILE)
                        .withMode(WorkerContainer.TLS_FILE_MODE).endItem()
                        .endSecret().build());
            }
            return new VolumeBuilder().withName(volumeName()).withNewProjected()
                    .withDefaultMode(WorkerContainer.TLS_FILE_MODE).withSources(sources).endProjected().build();
        }

        VolumeMount volumeMount() {
            return new VolumeMountBuilder().withName(volumeName()).withMountPath(WorkerContainer.tlsDir(role))
                    .withReadOnly(true).build();
        }
    }

    private static List<TlsMount> tlsMounts(BackstageTopologySpec broker) {
        List<TlsMount> mounts = new ArrayList<>();
        addTls(mounts, RuntimeConfigRenderer.PROVIDER_ROLE, broker.getTls());
        if (broker.getCapabilities() != null) {
            CapabilityBackend delays = broker.getCapabilities().getDelays();
            addTls(mounts, RuntimeConfigRenderer.DELAYS_ROLE, delays == null ? null : delays.getTls());
            CapabilityBackend dedupe = broker.getCapabilities().getDedupe();
            addTls(mounts, RuntimeConfigRenderer.DEDUPE_ROLE, dedupe == null ? null : dedupe.getTls());
        }
        return mounts;
    }

    private static void addTls(List<TlsMount> mounts, String role, TlsSpec tls) {
        if (tls != null && (tls.getCaBundle() != null || tls.getClientCertificateSecret() != null)) {
            mounts.add(new TlsMount(role, tls));
        }
    }

    private static EnvVar secretEnv(String name, SecretKeyReference ref) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewSecretKeyRef().withName(ref.getSecretName()).withKey(ref.getKey() == null ? "url" : ref.getKey())
                .endSecretKeyRef()
                .endValueFrom()
                .build();
    }

    private static Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet().withPath(path).withPort(new IntOrString(WorkerContainer.HTTP_PORT_NAME)).endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(2)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    /** Skips the server-side-apply matcher when neither the Deployment nor its desired state changed ({@link MatchMemo}). */
    @Override
    public Matcher.Result<Deployment> match(Deployment actual, Deployment desired, BackstageWorkerPool pool,
            Context<BackstageWorkerPool> context) {
        return matched.match(actual, desired, () -> super.match(actual, desired, pool, context));
    }

    @Override
    public Deployment create(Deployment desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        Deployment created = super.create(desired, pool, context);
        PoolPlan plan = PoolPlan.from(context);
        plan.events().normal(pool, "DeploymentCreated", "Created Deployment " + desired.getMetadata().getName()
                + " with " + plan.replicas() + " replica(s), config " + plan.configHash() + " in ConfigMap "
                + PoolResources.configMapName(pool));
        return created;
    }

    @Override
    public Deployment update(Deployment actual, Deployment desired, BackstageWorkerPool pool,
            Context<BackstageWorkerPool> context) {
        Deployment updated = super.update(actual, desired, pool, context);
        PoolPlan.from(context).events().normal(pool, updateReason(actual, desired), updateMessage(actual, desired));
        return updated;
    }

    /** {@code Scaled} when replicas is all that moved, else {@code DeploymentUpdated} (spec change or drift). */
    static String updateReason(Deployment actual, Deployment desired) {
        boolean scaled = !Objects.equals(actual.getSpec().getReplicas(), desired.getSpec().getReplicas());
        boolean templateSame = Objects.equals(image(actual), image(desired))
                && Objects.equals(configHash(actual), configHash(desired));
        return scaled && templateSame ? "Scaled" : "DeploymentUpdated";
    }

    static String updateMessage(Deployment actual, Deployment desired) {
        StringBuilder message = new StringBuilder("Updated Deployment ").append(desired.getMetadata().getName())
                .append(" to the pool's spec");
        if (!Objects.equals(actual.getSpec().getReplicas(), desired.getSpec().getReplicas())) {
            message.append("; replicas ").append(actual.getSpec().getReplicas()).append(" -> ")
                    .append(desired.getSpec().getReplicas());
        }
        if (!Objects.equals(configHash(actual), configHash(desired))) {
            message.append("; config ").append(configHash(actual)).append(" -> ").append(configHash(desired));
        }
        return message.toString();
    }

    private static String image(Deployment deployment) {
        var containers = deployment.getSpec().getTemplate().getSpec() == null ? null
                : deployment.getSpec().getTemplate().getSpec().getContainers();
        return containers == null || containers.isEmpty() ? null : containers.get(0).getImage();
    }

    private static String configHash(Deployment deployment) {
        var annotations = deployment.getSpec().getTemplate().getMetadata() == null ? null
                : deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(PoolResources.CONFIG_HASH_ANNOTATION);
    }
}
