package dev.backstage.operator.topology;

import dev.backstage.operator.broker.TopologyProblem;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.runtime.spi.DeclaredObject;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What deleting a topology that carries the operator's finalizer does. With {@code deletionPolicy: delete} it
 * deletes the broker objects, retrying a bounded number of times ({@link TopologySettings#cleanupAttempts()})
 * before giving up with a Warning Event, so a broker that never returns cannot hold the namespace for ever. A
 * retained topology that still has the finalizer (put there by an older version) is released at once.
 */
final class TopologyCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(TopologyCleanup.class);
    private static final int LISTED_NAMES = 10;

    private final TopologyBroker broker;
    private final EventRecorder events;
    private final TopologySettings settings;
    private final Clock clock;

    TopologyCleanup(TopologyBroker broker, EventRecorder events, TopologySettings settings, Clock clock) {
        this.broker = broker;
        this.events = events;
        this.settings = settings;
        this.clock = clock;
    }

    /** The topology's deletion policy ({@code retain} unless it says {@code delete}). */
    static DeletionPolicy policy(BackstageTopology topology) {
        return topology.getSpec() == null || topology.getSpec().getDeletionPolicy() == null
                ? DeletionPolicy.RETAIN
                : topology.getSpec().getDeletionPolicy();
    }

    /** Releases a deleted topology, or says when to try again (the finalizer stays until then). */
    DeleteControl run(BackstageTopology topology, Context<BackstageTopology> context) {
        String name = topology.getMetadata().getNamespace() + "/"
                + topology.getMetadata().getName();
        if (policy(topology) == DeletionPolicy.RETAIN) {
            // An older version's finalizer (or one whose policy was changed to retain): nothing to delete. The
            // reconciler says BrokerObjectsRetained when the topology is gone.
            return DeleteControl.defaultDelete();
        }

        Instant now = clock.instant();
        Optional<Instant> last = CleanupAttempts.last(topology);
        if (last.isPresent() && last.get().plus(settings.cleanupRetryDelay()).isAfter(now)) {
            // Woken early (e.g. by our own annotation write): wait out the retry delay without counting an attempt.
            return DeleteControl.noFinalizerRemoval()
                    .rescheduleAfter(Duration.between(now, last.get().plus(settings.cleanupRetryDelay()))
                            .toMillis());
        }
        int attempt = CleanupAttempts.count(topology) + 1;
        String failure;
        try {
            TopologyBroker.Declaration deleted = broker.delete(topology);
            List<DeclaredObject> failed = deleted.objects().stream()
                    .filter(o -> o.state() == DeclaredObject.State.FAILED)
                    .toList();
            if (failed.isEmpty()) {
                LOG.info(
                        "topology {} deleted; deletionPolicy delete: {} broker objects removed",
                        name,
                        deleted.objects().size());
                events.normal(
                        topology,
                        "BrokerObjectsDeleted",
                        "deletionPolicy delete: removed "
                                + names(deleted.objects().stream()
                                        .filter(o -> o.state() == DeclaredObject.State.DELETED)
                                        .toList())
                                + " from " + deleted.provider());
                return DeleteControl.defaultDelete();
            }
            failure = describeFailures(failed, deleted.scrubber());
        } catch (TopologyProblem problem) {
            failure = problem.reason() + ": " + problem.getMessage();
        }

        if (attempt >= settings.cleanupAttempts()) {
            LOG.warn("topology {}: giving up deleting broker objects after {} attempts: {}", name, attempt, failure);
            events.warning(
                    topology,
                    "CleanupAbandoned",
                    "deletionPolicy delete: gave up after " + attempt
                            + " attempts and released the topology; delete its broker objects by hand (prefix '"
                            + topology.getSpec().getKeyPrefix() + "'). Last failure: " + failure);
            broker.forget(topology);
            return DeleteControl.defaultDelete();
        }
        LOG.warn(
                "topology {}: deleting broker objects failed (attempt {}/{}): {}",
                name,
                attempt,
                settings.cleanupAttempts(),
                failure);
        events.warning(
                topology,
                "CleanupFailed",
                "deletionPolicy delete: attempt " + attempt + "/"
                        + settings.cleanupAttempts() + " failed, retrying in "
                        + settings.cleanupRetryDelay().toSeconds()
                        + "s: " + failure);
        CleanupAttempts.record(context.getClient(), topology, attempt, now);
        return DeleteControl.noFinalizerRemoval()
                .rescheduleAfter(settings.cleanupRetryDelay().toMillis());
    }

    private static String describeFailures(
            List<DeclaredObject> failed, dev.backstage.operator.broker.SecretScrubber scrubber) {
        return scrubber.scrub(failed.stream()
                .map(o -> o.kind() + " " + o.name() + " " + o.state().name().toLowerCase(Locale.ROOT)
                        + (o.detail() == null ? "" : " (" + o.detail() + ")"))
                .collect(Collectors.joining("; ")));
    }

    private static String names(List<DeclaredObject> objects) {
        String listed = objects.stream()
                .limit(LISTED_NAMES)
                .map(o -> o.kind() + " " + o.name())
                .collect(Collectors.joining(", "));
        return objects.size() > LISTED_NAMES ? listed + " and " + (objects.size() - LISTED_NAMES) + " more" : listed;
    }
}
