package dev.backstage.operator.console;

import dev.backstage.operator.broker.BrokerConnectionException;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.function.Function;

/**
 * What the console does on a broker or the API server once the server checked the user's right: reads a page of
 * dead letters, redrives or deletes them through the runtime's {@link DeadLetterQueue} (the same code the CLI's
 * {@code dead-letters} commands use), suspends or resumes a schedule; each action is recorded as an Event on the
 * resource naming the user. Broker connections are the console's own {@link ProbeProviders} (Secrets read as the
 * backlog probes read them; no credential is ever shown).
 */
public final class ConsoleActions {
    /** A redrive-all moves at most this many entries per click, so one request stays bounded. */
    static final int REDRIVE_ALL_LIMIT = 10_000;

    private final KubernetesClient client;
    private final ProbeProviders brokers;
    private final EventRecorder events;

    public ConsoleActions(KubernetesClient client, ProbeProviders brokers, EventRecorder events) {
        this.client = client;
        this.brokers = brokers;
        this.events = events;
    }

    /** A page of dead letters and the queue's count. */
    public record DeadLetters(List<DeadLetterEntry> entries, long total, boolean oneByOne) {}

    public DeadLetters page(BackstageTopology topology, String queue, String afterId, int limit)
            throws BrokerConnectionException {
        return withQueue(topology, dlq -> {
            List<DeadLetterEntry> entries = dlq.page(queue, afterId, limit);
            boolean oneByOne = dlq.supportsSingleEntries();
            return new DeadLetters(entries, dlq.count(queue), oneByOne);
        });
    }

    /** The pool's newest Events (at most {@code limit}), newest first. */
    public List<io.fabric8.kubernetes.api.model.Event> recentEvents(BackstageWorkerPool pool, int limit) {
        List<io.fabric8.kubernetes.api.model.Event> events = new java.util.ArrayList<>(client.v1()
                .events()
                .inNamespace(pool.getMetadata().getNamespace())
                .withField("involvedObject.name", pool.getMetadata().getName())
                .withField("involvedObject.kind", pool.getKind())
                .list()
                .getItems());
        events.sort(java.util.Comparator.comparing(ConsoleActions::lastSeen).reversed());
        return events.size() > limit ? events.subList(0, limit) : events;
    }

    private static String lastSeen(io.fabric8.kubernetes.api.model.Event e) {
        if (e.getLastTimestamp() != null) {
            return e.getLastTimestamp();
        }
        if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
            return e.getEventTime().getTime();
        }
        return e.getMetadata().getCreationTimestamp() == null
                ? ""
                : e.getMetadata().getCreationTimestamp();
    }

    public boolean redriveOne(
            Session user, BackstageWorkerPool pool, BackstageTopology topology, String queue, String id)
            throws BrokerConnectionException {
        boolean moved = withQueue(topology, dlq -> dlq.redriveOne(queue, id));
        if (moved) {
            events.normal(
                    pool,
                    "DeadLetterRedriven",
                    "console: " + user.user() + " redrove dead letter " + id + " of queue " + queue);
        }
        return moved;
    }

    public long redriveAll(Session user, BackstageWorkerPool pool, BackstageTopology topology, String queue)
            throws BrokerConnectionException {
        long moved = withQueue(topology, dlq -> dlq.redrive(queue, REDRIVE_ALL_LIMIT));
        events.normal(
                pool,
                "DeadLettersRedriven",
                "console: " + user.user() + " redrove " + moved + " dead letter(s) of queue " + queue);
        return moved;
    }

    public boolean delete(Session user, BackstageWorkerPool pool, BackstageTopology topology, String queue, String id)
            throws BrokerConnectionException {
        boolean deleted = withQueue(topology, dlq -> dlq.delete(queue, id));
        if (deleted) {
            events.normal(
                    pool,
                    "DeadLetterDeleted",
                    "console: " + user.user() + " deleted dead letter " + id + " of queue " + queue);
        }
        return deleted;
    }

    /**
     * Sets {@code spec.schedules[i].suspend} with a JSON patch that first tests the entry's name, so a concurrent edit
     * that reorders the schedules fails instead of suspending another one.
     *
     * @return false when the topology has no schedule of that name
     */
    public boolean suspend(Session user, BackstageTopology topology, String schedule, boolean suspend) {
        List<ScheduleSpec> schedules =
                topology.getSpec() == null || topology.getSpec().getSchedules() == null
                        ? List.of()
                        : topology.getSpec().getSchedules();
        int index = -1;
        for (int i = 0; i < schedules.size(); i++) {
            if (schedule.equals(schedules.get(i).getName())) {
                index = i;
            }
        }
        if (index < 0) {
            return false;
        }
        String patch = "[{\"op\":\"test\",\"path\":\"/spec/schedules/" + index + "/name\",\"value\":"
                + io.fabric8.kubernetes.client.utils.Serialization.asJson(schedule) + "},"
                + "{\"op\":\"add\",\"path\":\"/spec/schedules/" + index + "/suspend\",\"value\":" + suspend + "}]";
        client.resources(BackstageTopology.class)
                .inNamespace(topology.getMetadata().getNamespace())
                .withName(topology.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON), patch);
        events.normal(
                topology,
                suspend ? "ScheduleSuspended" : "ScheduleResumed",
                "console: " + user.user() + (suspend ? " suspended" : " resumed") + " schedule " + schedule);
        return true;
    }

    private <T> T withQueue(BackstageTopology topology, Function<DeadLetterQueue, T> use)
            throws BrokerConnectionException {
        try (ProbeProviders.Lease lease = brokers.lease(topology)) {
            try {
                return use.apply(lease.provider().deadLetters());
            } catch (UnsupportedOperationException e) {
                throw e;
            } catch (RuntimeException e) {
                lease.invalidate();
                throw e;
            }
        }
    }
}
