package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.scaling.PodStartupTimes;
import dev.backstage.operator.workload.PoolResources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures each pool's pod start-up (creation → Ready) from the pods its Deployment owns, through
 * {@link PodStartupTimes}: the median over the newest pods, once enough were seen. Lists a pool's pods at most once
 * per {@code refresh} (the figure moves slowly; a list per poll per pool would be load on the API server for
 * nothing), and not at all while its status counts no pod (scaled to zero). Blocks on the API server: call it from a monitor thread.
 *
 * <p>Needs {@code pods: list} in the pool's namespace. Without it (403) the configured {@code podStartupTime} is
 * used, and the log says once per pool why.
 */
final class PodStartupMeter {
    private static final Logger LOG = LoggerFactory.getLogger(PodStartupMeter.class);

    private record Reading(Instant at, Optional<PodStartupTimes.Measured> measured) {}

    private final KubernetesClient client;
    private final Clock clock;
    private final Duration refresh;
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();
    private final Map<String, Boolean> warned = new ConcurrentHashMap<>();

    PodStartupMeter(KubernetesClient client, Clock clock, Duration refresh) {
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.refresh = Objects.requireNonNull(refresh, "refresh");
    }

    /** The pool's measured start-up, or empty while too few of its pods were seen Ready (or pods cannot be read). */
    Optional<PodStartupTimes.Measured> startup(BackstageWorkerPool pool) {
        if (noPods(pool)) {
            // Nothing to measure (a list would come back empty): a pool scaled to zero costs no request.
            return Optional.empty();
        }
        String key =
                pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
        Instant now = clock.instant();
        Reading last = readings.get(key);
        if (last != null && now.isBefore(last.at().plus(refresh))) {
            return last.measured();
        }
        Optional<PodStartupTimes.Measured> measured = measure(key, pool);
        readings.put(key, new Reading(now, measured));
        return measured;
    }

    /** The pool's status (from its Deployment's) counts no pod, not even one starting. */
    static boolean noPods(BackstageWorkerPool pool) {
        var status = pool.getStatus();
        return status != null
                && Integer.valueOf(0).equals(status.getReplicas())
                && (status.getReadyReplicas() == null || status.getReadyReplicas() == 0);
    }

    /** Forgets a pool (it was deleted). */
    void forget(BackstageWorkerPool pool) {
        String key =
                pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
        readings.remove(key);
        warned.remove(key);
    }

    private Optional<PodStartupTimes.Measured> measure(String key, BackstageWorkerPool pool) {
        List<Pod> pods;
        try {
            pods = client.pods()
                    .inNamespace(pool.getMetadata().getNamespace())
                    .withLabels(PoolResources.selector(pool))
                    .list()
                    .getItems();
        } catch (KubernetesClientException e) {
            if (warned.putIfAbsent(key, Boolean.TRUE) == null) {
                LOG.warn(
                        "pool {}: cannot list its pods to measure their start-up (HTTP {}), using "
                                + "spec.autoscaling.podStartupTime: {}",
                        key,
                        e.getCode(),
                        e.getMessage());
            }
            return Optional.empty();
        }
        warned.remove(key);
        return PodStartupTimes.measure(starts(pods));
    }

    /** Creation and Ready times of the pods; pods without a creation time (not persisted yet) are skipped. */
    static List<PodStartupTimes.PodStart> starts(List<Pod> pods) {
        List<PodStartupTimes.PodStart> starts = new ArrayList<>();
        for (Pod pod : pods) {
            Instant created =
                    time(pod.getMetadata() == null ? null : pod.getMetadata().getCreationTimestamp());
            if (created == null) {
                continue;
            }
            Instant ready = null;
            if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
                for (PodCondition condition : pod.getStatus().getConditions()) {
                    if ("Ready".equals(condition.getType()) && "True".equals(condition.getStatus())) {
                        ready = time(condition.getLastTransitionTime());
                    }
                }
            }
            starts.add(new PodStartupTimes.PodStart(created, ready));
        }
        return starts;
    }

    private static Instant time(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null; // not a time the API server writes; the pod is skipped rather than guessed at
        }
    }
}
