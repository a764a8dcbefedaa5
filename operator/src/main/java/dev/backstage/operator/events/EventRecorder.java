package dev.backstage.operator.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events about our resources (JOSDK 5.2.3 has no recorder). Like client-go's recorder, a repeat
 * of the same reason and message on the same object bumps the existing Event's count instead of adding one,
 * so a failing reconcile that retries does not flood {@code kubectl describe}.
 *
 * <p>An Event is a courtesy to the user: failing to write one is logged and never fails a reconcile. Like client-go's
 * recorder, it is written in the background: {@link #record} queues it and returns, and {@value #WRITERS} threads
 * ({@code event-recorder-N}) write the queues, the Events of one object by one thread in the order they were
 * recorded, so a reconcile never waits for an Event's API request (at 1,000 pools created at once, Events were half of
 * the reconcilers' sequential API requests). When the API server falls so far behind that {@value #QUEUED} Events
 * wait, further ones are dropped and counted in the log. {@link #close} writes what is queued, for a bounded time.
 *
 * <p>Messages must never contain secrets; callers pass only names and reasons.
 */
public class EventRecorder implements AutoCloseable {
    public static final String NORMAL = "Normal";
    public static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final int REMEMBERED = 512;
    private static final int MAX_MESSAGE = 1024;
    /** Events waiting to be written, at most: four per pool of 1,000 created at once, about 2 MiB. */
    static final int QUEUED = 4096;
    /** Writer threads: Events are sequential API requests, and one writer at a time falls behind a mass creation. */
    static final int WRITERS = 4;

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final KubernetesClient client;
    private final String component;
    private final String instance;
    private final Clock clock;
    /** Last Event written per (object uid, type, reason, message), for count aggregation. Bounded LRU. */
    private final Map<String, String> recent = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };
    /** One queue per writer; an object's Events go to one of them (by uid), so they are written in order. */
    private final List<BlockingQueue<Pending>> queues = new ArrayList<>();

    private final List<Thread> writers = new ArrayList<>();
    private final AtomicLong dropped = new AtomicLong();
    /** Events recorded and not yet written (or given up on). */
    private final AtomicInteger unwritten = new AtomicInteger();

    private volatile boolean closed;

    public EventRecorder(KubernetesClient client, String component, String instance, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.component = Objects.requireNonNull(component, "component");
        this.instance = Objects.requireNonNull(instance, "instance");
        this.clock = Objects.requireNonNull(clock, "clock");
        for (int i = 0; i < WRITERS; i++) {
            BlockingQueue<Pending> queue = new LinkedBlockingQueue<>(QUEUED / WRITERS);
            Thread writer = new Thread(() -> writeQueued(queue), "event-recorder-" + (i + 1));
            writer.setDaemon(true);
            queues.add(queue);
            writers.add(writer);
            writer.start();
        }
    }

    public void normal(HasMetadata involved, String reason, String message) {
        record(involved, NORMAL, reason, message);
    }

    public void warning(HasMetadata involved, String reason, String message) {
        record(involved, WARNING, reason, message);
    }

    /** Queues the Event; returns at once (see the class comment). */
    public void record(HasMetadata involved, String type, String reason, String message) {
        String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
        // The reference is taken now: the caller may go on to change its copy of the object.
        ObjectReference reference = new ObjectReferenceBuilder()
                .withApiVersion(involved.getApiVersion())
                .withKind(involved.getKind())
                .withName(involved.getMetadata().getName())
                .withNamespace(involved.getMetadata().getNamespace())
                .withUid(involved.getMetadata().getUid())
                .withResourceVersion(involved.getMetadata().getResourceVersion())
                .build();
        Pending pending =
                new Pending(reference, type, reason, text, clock.instant().truncatedTo(ChronoUnit.SECONDS));
        BlockingQueue<Pending> queue =
                queues.get(Math.floorMod(String.valueOf(reference.getUid()).hashCode(), WRITERS));
        unwritten.incrementAndGet();
        if (closed || !queue.offer(pending)) {
            unwritten.decrementAndGet();
            long total = dropped.incrementAndGet();
            if (Long.bitCount(total) == 1) { // 1, 2, 4, 8, ...: the log says it without flooding
                LOG.warn(
                        "dropped {} event {} on {}/{} ({} dropped so far): {}",
                        type,
                        reason,
                        reference.getNamespace(),
                        reference.getName(),
                        total,
                        closed ? "the recorder is closed" : QUEUED + " events are waiting for the API server");
            }
        }
    }

    /**
     * Waits until every Event queued so far has been written (or given up on), at most {@code timeout}.
     *
     * @return whether the queue was written out in time
     */
    public boolean flush(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (unwritten) {
            while (unwritten.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                unwritten.wait(Math.max(1, left / 1_000_000));
            }
        }
        return true;
    }

    /** Writes what is queued (for at most a few seconds), then stops the writer. */
    @Override
    public void close() {
        closed = true;
        try {
            if (!flush(CLOSE_WAIT)) {
                LOG.info("{} events not written at shutdown", unwritten.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writers.forEach(Thread::interrupt);
    }

    private record Pending(ObjectReference involved, String type, String reason, String message, Instant at) {}

    private void writeQueued(BlockingQueue<Pending> queue) {
        while (true) {
            Pending pending;
            try {
                pending = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                write(pending);
            } catch (RuntimeException e) {
                LOG.warn(
                        "could not record {} event {} on {}/{}: {}",
                        pending.type(),
                        pending.reason(),
                        pending.involved().getNamespace(),
                        pending.involved().getName(),
                        e.toString());
            } finally {
                synchronized (unwritten) {
                    if (unwritten.decrementAndGet() == 0) {
                        unwritten.notifyAll();
                    }
                }
            }
        }
    }

    private void write(Pending pending) {
        ObjectReference involved = pending.involved();
        String namespace = involved.getNamespace();
        String key = involved.getUid() + "|" + pending.type() + "|" + pending.reason() + "|" + pending.message();
        Instant now = pending.at();
        try {
            String previous;
            synchronized (recent) {
                previous = recent.get(key);
            }
            if (previous != null && bump(namespace, previous, now)) {
                return;
            }
            Event event = new EventBuilder()
                    .withNewMetadata()
                    .withNamespace(namespace)
                    .withName(involved.getName() + "." + Long.toHexString(now.toEpochMilli())
                            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000)))
                    .endMetadata()
                    .withInvolvedObject(involved)
                    .withType(pending.type())
                    .withReason(pending.reason())
                    .withMessage(pending.message())
                    .withCount(1)
                    .withFirstTimestamp(now.toString())
                    .withLastTimestamp(now.toString())
                    .withNewSource()
                    .withComponent(component)
                    .endSource()
                    .withReportingComponent(component)
                    .withReportingInstance(instance)
                    .build();
            Event created =
                    client.v1().events().inNamespace(namespace).resource(event).create();
            synchronized (recent) {
                recent.put(key, created.getMetadata().getName());
            }
        } catch (KubernetesClientException e) {
            if (ApiRefusal.namespaceTerminating(e)) {
                LOG.debug(
                        "event {} on {}/{} not recorded: the namespace is being deleted",
                        pending.reason(),
                        namespace,
                        involved.getName());
                return;
            }
            LOG.warn(
                    "could not record {} event {} on {}/{}: {}",
                    pending.type(),
                    pending.reason(),
                    namespace,
                    involved.getName(),
                    e.getMessage());
        }
    }

    /** Bumps count and lastTimestamp of an earlier Event; false when it is gone (expired or deleted). */
    private boolean bump(String namespace, String name, Instant now) {
        var resource = client.v1().events().inNamespace(namespace).withName(name);
        Event existing = resource.get();
        if (existing == null) {
            return false;
        }
        int count = existing.getCount() == null ? 1 : existing.getCount();
        resource.edit(e -> new EventBuilder(e)
                .withCount(count + 1)
                .withLastTimestamp(now.toString())
                .build());
        return true;
    }
}
