package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each pool's backlog, desired replicas and dead letters as gauges on the operator's {@code /metrics}, tagged
 * {@code namespace} and {@code pool}, from the figures the autoscaler writes to status (so the two always agree).
 * Named like the runtime's metrics ({@code backstage_*}). A figure the status does not hold yet reads NaN; a
 * deleted pool's gauges are removed.
 */
public final class PoolMetrics {
    /** Outstanding jobs (undelivered + in flight) of the pool's queues: status.backlog.outstanding. */
    public static final String BACKLOG = "backstage_pool_backlog";
    /** Replicas the pool should run: status.desiredReplicas. */
    public static final String DESIRED_REPLICAS = "backstage_pool_desired_replicas";
    /** Jobs in the dead-letter destinations of the pool's queues: status.deadLetters.total. */
    public static final String DEAD_LETTERS = "backstage_pool_dead_letters";

    private final MeterRegistry registry;
    private final Map<String, PoolGauges> pools = new ConcurrentHashMap<>();

    PoolMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    private record PoolGauges(AtomicLong backlog, AtomicLong desired, AtomicLong deadLetters, List<Meter> meters) {}

    /** Takes the figures from the pool's status. */
    void record(BackstageWorkerPool pool) {
        String key = key(pool);
        PoolGauges gauges = pools.computeIfAbsent(key, k -> register(pool));
        BackstageWorkerPoolStatus status = pool.getStatus();
        if (status == null) {
            return;
        }
        if (status.getBacklog() != null && status.getBacklog().getOutstanding() != null) {
            gauges.backlog().set(status.getBacklog().getOutstanding());
        }
        if (status.getDesiredReplicas() != null) {
            gauges.desired().set(status.getDesiredReplicas());
        }
        if (status.getDeadLetters() != null && status.getDeadLetters().getTotal() != null) {
            gauges.deadLetters().set(status.getDeadLetters().getTotal());
        }
    }

    void remove(BackstageWorkerPool pool) {
        PoolGauges gauges = pools.remove(key(pool));
        if (gauges != null) {
            gauges.meters().forEach(registry::remove);
        }
    }

    private PoolGauges register(BackstageWorkerPool pool) {
        Tags tags = Tags.of(
                "namespace",
                pool.getMetadata().getNamespace(),
                "pool",
                pool.getMetadata().getName());
        AtomicLong backlog = new AtomicLong(-1);
        AtomicLong desired = new AtomicLong(-1);
        AtomicLong deadLetters = new AtomicLong(-1);
        List<Meter> meters = List.of(
                gauge(BACKLOG, "outstanding jobs (undelivered + in flight) of the pool's queues", tags, backlog),
                gauge(
                        DESIRED_REPLICAS,
                        "replicas the pool should run (spec.replicas or the autoscaler's decision)",
                        tags,
                        desired),
                gauge(DEAD_LETTERS, "jobs in the dead-letter destinations of the pool's queues", tags, deadLetters));
        return new PoolGauges(backlog, desired, deadLetters, meters);
    }

    private Meter gauge(String name, String description, Tags tags, AtomicLong value) {
        return Gauge.builder(name, value, v -> v.get() < 0 ? Double.NaN : v.get())
                .description(description)
                .tags(tags)
                .register(registry);
    }

    private static String key(BackstageWorkerPool pool) {
        return pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
    }
}
