package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.scaling.ScalingPolicy;
import dev.backstage.runtime.config.Durations;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A pool's autoscaling block (plus its topology, for Kafka) as the decider's {@link ScalingPolicy}. Absent fields
 * take the CRD schema's defaults, which are the ones written in {@link AutoscalingSpec}.
 */
public final class PoolScalingPolicy {
    /** The runtime's default worker concurrency (Worker.Builder), used when the pool leaves it unset. */
    static final int RUNTIME_DEFAULT_CONCURRENCY = 50;

    private PoolScalingPolicy() {}

    /**
     * @param report the newest probe report, or {@code null}: for Kafka its partition counts (what the broker has)
     *               win over the topology's declared ones
     * @throws IllegalArgumentException when the spec holds values the schema should have refused (min > max, ...)
     */
    public static ScalingPolicy of(BackstageWorkerPool pool, BackstageTopology topology, BacklogReport report) {
        return of(pool, topology, report, null);
    }

    /**
     * @param measuredStartup the pool's pod start-up as measured from its pods ({@link PodStartupMeter}), which
     *                        replaces {@code spec.autoscaling.podStartupTime}; {@code null} while not measured
     */
    public static ScalingPolicy of(
            BackstageWorkerPool pool, BackstageTopology topology, BacklogReport report, Duration measuredStartup) {
        AutoscalingSpec spec = pool.getSpec().getAutoscaling();
        AutoscalingSpec defaults = new AutoscalingSpec();
        Integer concurrency = pool.getSpec().getConcurrency();
        return ScalingPolicy.builder()
                .minReplicas(or(spec.getMinReplicas(), defaults.getMinReplicas()))
                .maxReplicas(or(spec.getMaxReplicas(), defaults.getMaxReplicas()))
                .targetBacklogPerReplica(or(spec.getTargetBacklogPerReplica(), defaults.getTargetBacklogPerReplica()))
                .targetDrain(Durations.parseOr("spec.autoscaling.targetDrainTime", spec.getTargetDrainTime(), null))
                .scaleDownWindow(Durations.parse(
                        "spec.autoscaling.scaleDownWindow",
                        or(spec.getScaleDownWindow(), defaults.getScaleDownWindow())))
                .concurrencyPerReplica(concurrency == null ? RUNTIME_DEFAULT_CONCURRENCY : concurrency)
                .podStartup(
                        measuredStartup != null
                                ? measuredStartup
                                : Durations.parse(
                                        "spec.autoscaling.podStartupTime",
                                        or(spec.getPodStartupTime(), defaults.getPodStartupTime())))
                .pollInterval(pollInterval(pool))
                .scaleUpLookahead(Durations.parse(
                        "spec.autoscaling.scaleUpLookahead",
                        or(spec.getScaleUpLookahead(), defaults.getScaleUpLookahead())))
                .scaleDownInterval(Durations.parse(
                        "spec.autoscaling.scaleDownInterval",
                        or(spec.getScaleDownInterval(), defaults.getScaleDownInterval())))
                .partitionCap(partitionCap(pool, topology, report))
                .build();
    }

    /** {@code spec.autoscaling.pollInterval}, default 5 s, for every pool (the figures are polled either way). */
    public static Duration pollInterval(BackstageWorkerPool pool) {
        AutoscalingSpec spec = pool.getSpec().getAutoscaling();
        Duration interval =
                spec == null ? null : Durations.parseOr("spec.autoscaling.pollInterval", spec.getPollInterval(), null);
        return interval == null || interval.isZero() ? ScalingPolicy.DEFAULT_POLL_INTERVAL : interval;
    }

    /**
     * The delay to the pool's next backlog poll: {@link #pollInterval}, or {@code spec.autoscaling.zeroPollInterval}
     * (default 1 s) when shorter and the autoscaled pool is at zero replicas, so a first job is seen within it.
     */
    public static Duration nextPoll(BackstageWorkerPool pool) {
        Duration interval = pollInterval(pool);
        if (!autoscalingOn(pool)
                || pool.getStatus() == null
                || pool.getStatus().getDesiredReplicas() == null
                || pool.getStatus().getDesiredReplicas() != 0) {
            return interval;
        }
        Duration atZero = Durations.parseOr(
                "spec.autoscaling.zeroPollInterval",
                pool.getSpec().getAutoscaling().getZeroPollInterval(),
                ZERO_POLL_INTERVAL);
        return atZero.isZero() || atZero.compareTo(interval) >= 0 ? interval : atZero;
    }

    /** The default of {@code spec.autoscaling.zeroPollInterval}. */
    static final Duration ZERO_POLL_INTERVAL = Duration.ofSeconds(1);

    public static boolean autoscalingOn(BackstageWorkerPool pool) {
        return pool.getSpec().getAutoscaling() != null
                && pool.getSpec().getAutoscaling().isOn();
    }

    /**
     * Kafka: the partitions of all the pool's queue topics together. Each replica runs one consumer in the group
     * and the cooperative-sticky assignor spreads every partition of every topic over the members, so a replica
     * beyond the total gets no partition and sits idle. Other brokers: no cap.
     */
    static Integer partitionCap(BackstageWorkerPool pool, BackstageTopology topology, BacklogReport report) {
        if (topology == null || topology.getSpec().getProvider() != ProviderType.KAFKA) {
            return null;
        }
        List<String> queues =
                pool.getSpec().getQueues() == null ? List.of() : pool.getSpec().getQueues();
        int total = 0;
        for (String queue : queues) {
            Optional<Integer> measured = report == null
                    ? Optional.empty()
                    : report.queues().stream()
                            .filter(q ->
                                    q.queue().equals(queue) && !q.partitions().isEmpty())
                            .map(QueueBacklog::partitions)
                            .map(List::size)
                            .findFirst();
            total += measured.orElseGet(() -> declaredPartitions(topology, queue));
        }
        return total < 1 ? null : total;
    }

    private static int declaredPartitions(BackstageTopology topology, String queue) {
        return topology.getSpec().getQueues().stream()
                .filter(q -> queue.equals(q.getName()))
                .findFirst()
                .map(QueueSpec::getPartitions)
                .orElse(1);
    }

    private static <T> T or(T value, T fallback) {
        return value == null ? fallback : value;
    }
}
