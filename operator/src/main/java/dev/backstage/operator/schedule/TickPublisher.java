package dev.backstage.operator.schedule;

import dev.backstage.operator.broker.BrokerConnectionException;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Fires one claimed tick on a topology's broker ({@link CronTick#fire}): the claim on the dedupe, then the job on the
 * jobs provider. The dedupe comes from the provider (Redis) or from {@code spec.capabilities.dedupe} (a Redis beside
 * RabbitMQ or Kafka). Holds the connections to both sides, cached per topology; a connection that just failed is
 * not reused.
 */
final class TickPublisher implements AutoCloseable {
    private static final String DEDUPE_SUFFIX = "-dedupe";

    private final ProbeProviders providers;
    private final ProbeProviders dedupeProviders;
    private final Clock clock;

    TickPublisher(ConnectionSecrets secrets, Function<ProviderSettings, Provider> opener, Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.providers = new ProbeProviders(secrets, opener, clock, Duration.ofMinutes(1), Duration.ofSeconds(5));
        this.dedupeProviders = new ProbeProviders(secrets, opener, clock, Duration.ofMinutes(1), Duration.ofSeconds(5));
    }

    CronTick.Outcome fire(BackstageTopology topology, Schedule schedule, Instant tick) {
        try (ProbeProviders.Lease jobs = providers.lease(topology)) {
            Optional<DedupeCapability> own = jobs.provider().dedupe();
            if (own.isPresent()) {
                return fire(schedule, tick, own.get(), jobs);
            }
            BackstageTopology dedupeSide = suppliedDedupe(topology)
                    .orElseThrow(() -> new IllegalStateException(
                            "provider " + topology.getSpec().getProvider().wire() + " has no dedupe: set"
                                    + " spec.capabilities.dedupe (backend redis)"));
            try (ProbeProviders.Lease dedupe = dedupeProviders.lease(dedupeSide)) {
                DedupeCapability capability = dedupe.provider().dedupe().orElseThrow();
                try {
                    return CronTick.fire(
                            schedule, tick, capability, jobs.provider().jobs(), clock);
                } catch (CronTick.ClaimedNotPublishedException e) {
                    jobs.invalidate();
                    throw e;
                } catch (RuntimeException e) {
                    dedupe.invalidate();
                    throw e;
                }
            }
        } catch (BrokerConnectionException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private CronTick.Outcome fire(
            Schedule schedule, Instant tick, DedupeCapability dedupe, ProbeProviders.Lease lease) {
        try {
            return CronTick.fire(schedule, tick, dedupe, lease.provider().jobs(), clock);
        } catch (RuntimeException e) {
            lease.invalidate();
            throw e;
        }
    }

    /** Closes the connections of every topology but those with these uids. */
    void retainOnly(Set<String> topologyUids) {
        providers.retainOnly(topologyUids);
        dedupeProviders.retainOnly(
                topologyUids.stream().map(uid -> uid + DEDUPE_SUFFIX).collect(Collectors.toSet()));
    }

    @Override
    public void close() {
        providers.close();
        dedupeProviders.close();
    }

    /**
     * The supplied dedupe backend seen as a Redis topology of its own (its key prefix, by default the topology's, and
     * the dedupe Secret, as the workers' runtime.yaml has it), so its connection is leased and cached like the jobs
     * provider's.
     */
    private static Optional<BackstageTopology> suppliedDedupe(BackstageTopology topology) {
        BackstageTopologySpec spec = topology.getSpec();
        if (spec.getCapabilities() == null || spec.getCapabilities().getDedupe() == null) {
            return Optional.empty();
        }
        BackstageTopology side = new BackstageTopology();
        side.setMetadata(Serialization.clone(topology.getMetadata()));
        side.getMetadata().setUid(topology.getMetadata().getUid() + DEDUPE_SUFFIX);
        BackstageTopologySpec sideSpec = new BackstageTopologySpec();
        sideSpec.setProvider(ProviderType.REDIS);
        sideSpec.setConnection(spec.getCapabilities().getDedupe().getConnection());
        String prefix = spec.getCapabilities().getDedupe().getKeyPrefix();
        sideSpec.setKeyPrefix(prefix == null ? spec.getKeyPrefix() : prefix);
        sideSpec.setConsumerGroup(spec.getConsumerGroup());
        side.setSpec(sideSpec);
        return Optional.of(side);
    }
}
