package dev.backstage.operator.polling;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One polling loop per primary resource on a small shared scheduler, registered with the resource's controller as
 * an event source: the one mechanism under the backlog monitors and the schedule firing.
 *
 * <p>Lifecycle: the subclass starts a resource's loop from its reconcile ({@link #startPolling}); reconciles run on
 * the leader only, so only the leader polls. As an event source it hears of every update of the resource (handed
 * to the loop's {@link PolledResource#refresh}) and of its deletion (the loop stops), and it stops every loop, its
 * threads and whatever the subclass closes ({@link #closing()}) with the operator. It emits no events. Each loop
 * schedules its next poll when the current one ends, after the delay the poll returned.
 *
 * <p>Why not JOSDK's {@code PerResourcePollingEventSource} (JOSDK 5.2): it registers a resource from informer
 * events, which every replica receives (JOSDK starts event sources on all replicas and holds back only the event
 * processor until leadership), so every replica would poll the brokers and write status; it polls to fetch
 * secondary resources that it caches and compares to trigger reconciles, while these pollers fetch nothing for a
 * reconciler and write status fields of their own; and a resource's polling ends for good after a poll that throws
 * or that misses the resource in the primary cache, yet never ends while the resource exists (a topology whose
 * schedules were all removed would be polled every second for nothing).
 *
 * @param <P> the primary resource
 * @param <T> what is polled per resource
 */
public abstract class PerResourcePoller<P extends HasMetadata, T extends PolledResource<P>>
        extends AbstractEventSource<Void, P> implements ResourceEventAware<P> {
    private static final Logger LOG = LoggerFactory.getLogger(PerResourcePoller.class);
    /** The delay after a poll that threw before it could name one (a bug in the poll: polling goes on). */
    static final Duration AFTER_FAILURE = Duration.ofSeconds(5);

    private final String name;
    private final ConcurrentMap<ResourceID, Loop> loops = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;

    /**
     * @param name         the event source's name, also in log lines
     * @param threads      threads polling for all resources together; a poll that blocks holds one
     * @param threadPrefix the threads' names: {@code threadPrefix}, or {@code threadPrefix-N} for more than one
     */
    protected PerResourcePoller(String name, int threads, String threadPrefix) {
        super(Void.class, name);
        this.name = Objects.requireNonNull(name, "name");
        this.scheduler = Executors.newScheduledThreadPool(threads, threadFactory(threadPrefix, threads));
    }

    /**
     * Starts polling the resource {@code id} now with what {@code create} makes, unless it is polled already.
     *
     * @return the one polled for {@code id}: the new one, or the one there was (then {@code create} was not used)
     */
    protected final T startPolling(ResourceID id, Supplier<T> create) {
        Loop existing = loops.get(id);
        if (existing != null) {
            return existing.polled;
        }
        Loop fresh = new Loop(id, create.get());
        Loop raced = loops.putIfAbsent(id, fresh);
        if (raced != null) {
            return raced.polled; // two reconciles raced: one loop wins
        }
        fresh.schedule(Duration.ZERO);
        return fresh.polled;
    }

    /** What is polled for {@code id}, when it is. */
    protected final Optional<T> polled(ResourceID id) {
        Loop loop = loops.get(id);
        return loop == null ? Optional.empty() : Optional.of(loop.polled);
    }

    /** Everything polled now. */
    protected final Collection<T> polled() {
        return loops.values().stream().map(loop -> loop.polled).toList();
    }

    /**
     * Stops polling {@code id}: no poll starts after this, and a running one writes nothing more.
     *
     * @return whether it was polled
     */
    protected final boolean stopPolling(ResourceID id) {
        Loop loop = loops.remove(id);
        if (loop == null) {
            return false;
        }
        loop.stop();
        return true;
    }

    /** Runs {@code work} once on the polling threads (e.g. a last status write after a resource's polling stopped). */
    protected final void runOnce(Runnable work) {
        try {
            scheduler.execute(work);
        } catch (RejectedExecutionException e) {
            LOG.debug("{} is stopping; one-off work dropped", name);
        }
    }

    /** Resources polled now (for tests and metrics). */
    public int size() {
        return loops.size();
    }

    /** Hook: the resource was updated (after its loop, if any, was handed the new copy). */
    protected void updated(P resource) {}

    /** Hook: the resource was deleted (after its loop, if any, stopped). */
    protected void deleted(P resource, boolean wasPolled) {}

    /** Hook: every loop stopped and the threads are shut down: close what the polls shared (connections). */
    protected void closing() {}

    @Override
    public final void onResourceUpdated(P newResource, P oldResource) {
        polled(ResourceID.fromResource(newResource)).ifPresent(p -> p.refresh(newResource));
        updated(newResource);
    }

    @Override
    public final void onResourceDeleted(P resource) {
        deleted(resource, stopPolling(ResourceID.fromResource(resource)));
    }

    @Override
    public final Set<Void> getSecondaryResources(P primary) {
        return Set.of();
    }

    @Override
    public void stop() throws OperatorException {
        List.copyOf(loops.keySet()).forEach(this::stopPolling);
        scheduler.shutdownNow();
        closing();
        LOG.info("{} stopped", name);
        super.stop();
    }

    private static ThreadFactory threadFactory(String prefix, int threads) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, threads == 1 ? prefix : prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One resource's loop: a poll, then the next one scheduled after the delay it asked for. */
    private final class Loop implements Runnable {
        private final ResourceID id;
        private final T polled;
        private ScheduledFuture<?> next;
        private boolean stopped;
        private Duration lastDelay = AFTER_FAILURE;

        Loop(ResourceID id, T polled) {
            this.id = id;
            this.polled = Objects.requireNonNull(polled, "polled");
        }

        @Override
        public void run() {
            Duration delay = lastDelay;
            try {
                delay = Objects.requireNonNull(polled.poll(), "poll delay");
            } catch (RuntimeException e) {
                LOG.warn("{}: poll of {} failed; next in {}: {}", name, id, delay, e.toString());
            } finally {
                lastDelay = delay;
                schedule(delay);
            }
        }

        synchronized void schedule(Duration delay) {
            if (stopped) {
                return;
            }
            try {
                next = scheduler.schedule(this, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                stopped = true; // the poller is stopping
            }
        }

        void stop() {
            synchronized (this) {
                stopped = true;
                if (next != null) {
                    next.cancel(false);
                }
            }
            polled.stop();
        }
    }
}
