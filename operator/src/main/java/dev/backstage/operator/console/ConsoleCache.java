package dev.backstage.operator.console;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pools and topologies the console shows, from informers of its own (on every operator replica, leader or not),
 * and each pool's {@link PoolHistory}, sampled from the pool's status every {@code sampleInterval} by one daemon
 * thread. A pool's history goes when the pool does.
 */
public final class ConsoleCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleCache.class);

    private final List<SharedIndexInformer<BackstageWorkerPool>> pools = new ArrayList<>();
    private final List<SharedIndexInformer<BackstageTopology>> topologies = new ArrayList<>();
    private final ConcurrentHashMap<String, PoolHistory> histories = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "console-sampler");
        t.setDaemon(true);
        return t;
    });
    private final Clock clock;
    private final int historyCapacity;

    /** @param namespaces the namespaces to show; empty = all */
    public ConsoleCache(
            KubernetesClient client,
            Set<String> namespaces,
            Clock clock,
            Duration sampleInterval,
            int historyCapacity) {
        this.clock = clock;
        this.historyCapacity = historyCapacity;
        if (namespaces.isEmpty()) {
            pools.add(
                    client.resources(BackstageWorkerPool.class).inAnyNamespace().inform());
            topologies.add(
                    client.resources(BackstageTopology.class).inAnyNamespace().inform());
        } else {
            for (String namespace : namespaces) {
                pools.add(client.resources(BackstageWorkerPool.class)
                        .inNamespace(namespace)
                        .inform());
                topologies.add(client.resources(BackstageTopology.class)
                        .inNamespace(namespace)
                        .inform());
            }
        }
        long periodMs = sampleInterval.toMillis();
        sampler.scheduleWithFixedDelay(this::sampleQuietly, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    public List<BackstageWorkerPool> pools() {
        return sorted(pools.stream().flatMap(i -> i.getStore().list().stream()).collect(Collectors.toList()));
    }

    public List<BackstageTopology> topologies() {
        return sorted(
                topologies.stream().flatMap(i -> i.getStore().list().stream()).collect(Collectors.toList()));
    }

    public Optional<BackstageWorkerPool> pool(String namespace, String name) {
        return pools.stream()
                .map(i -> i.getStore().getByKey(namespace + "/" + name))
                .filter(p -> p != null)
                .findFirst();
    }

    public Optional<BackstageTopology> topology(String namespace, String name) {
        return topologies.stream()
                .map(i -> i.getStore().getByKey(namespace + "/" + name))
                .filter(t -> t != null)
                .findFirst();
    }

    /** The pool's samples, oldest first; empty before its first sample. */
    public List<PoolSample> history(String namespace, String name) {
        PoolHistory history = histories.get(namespace + "/" + name);
        return history == null ? List.of() : history.samples();
    }

    /** Pools with a history: each costs {@link PoolHistory#bytesFor} its capacity. */
    public int historyCount() {
        return histories.size();
    }

    /** Takes one sample of every pool now (the sampler does this every interval). */
    public void sample() {
        long now = clock.millis();
        Set<String> seen = new java.util.HashSet<>();
        for (BackstageWorkerPool pool : pools()) {
            String key =
                    pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
            seen.add(key);
            histories
                    .computeIfAbsent(key, k -> new PoolHistory(historyCapacity))
                    .add(sampleOf(pool, now));
        }
        histories.keySet().retainAll(seen);
    }

    static PoolSample sampleOf(BackstageWorkerPool pool, long now) {
        BackstageWorkerPoolStatus status = pool.getStatus();
        if (status == null) {
            return new PoolSample(now, 0, 0, 0, 0, 0);
        }
        long outstanding = status.getBacklog() == null || status.getBacklog().getOutstanding() == null
                ? 0
                : status.getBacklog().getOutstanding();
        long inFlight = status.getBacklog() == null || status.getBacklog().getInFlight() == null
                ? 0
                : status.getBacklog().getInFlight();
        long dead = status.getDeadLetters() == null || status.getDeadLetters().getTotal() == null
                ? 0
                : status.getDeadLetters().getTotal();
        return new PoolSample(
                now,
                outstanding,
                inFlight,
                orZero(status.getDesiredReplicas()),
                orZero(status.getReadyReplicas()),
                dead);
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            LOG.warn(
                    "console: sampling the pools failed: {}",
                    dev.backstage.operator.broker.SecretScrubber.none().scrub(e.toString()));
        }
    }

    private static <T extends HasMetadata> List<T> sorted(List<T> items) {
        items.sort(Comparator.comparing((T t) -> t.getMetadata().getNamespace())
                .thenComparing(t -> t.getMetadata().getName()));
        return items;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        pools.forEach(SharedIndexInformer::close);
        topologies.forEach(SharedIndexInformer::close);
    }
}
