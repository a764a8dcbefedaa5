package dev.backstage.runtime.spi;

import java.util.Optional;

/**
 * A broker binding. It must supply {@link JobsCapability jobs}; it may supply delays, dedupe,
 * topics and broadcast, each of which a worker can also take from another backend. It also exposes the broker-side
 * tools the operator reuses: a {@link TopologyDeclarer} and a {@link BacklogProbe}.
 *
 * <p>Kept small on purpose (the seed's habit): everything about settlement policy lives in the core;
 * a provider only implements the mechanics of its broker.
 */
public interface Provider extends AutoCloseable {
    /** Short name used in reports and errors: {@code redis}, {@code rabbitmq}, {@code kafka}. */
    String name();

    JobsCapability jobs();

    default Optional<DelaysCapability> delays() {
        return Optional.empty();
    }

    default Optional<DedupeCapability> dedupe() {
        return Optional.empty();
    }

    default Optional<TopicsCapability> topics() {
        return Optional.empty();
    }

    default Optional<BroadcastCapability> broadcast() {
        return Optional.empty();
    }

    TopologyDeclarer declarer();

    BacklogProbe backlogProbe();

    DeadLetterQueue deadLetters();

    /** Current connection health, for readiness probes and metrics; never throws. */
    ProviderHealth health();

    @Override
    void close();
}
