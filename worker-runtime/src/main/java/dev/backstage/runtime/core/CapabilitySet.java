package dev.backstage.runtime.core;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.TopicsCapability;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Capability resolution, in one place: a supplied backend wins over the provider's own; anything
 * neither offers is missing, and every use of a missing capability fails with a message that says
 * what to supply.
 */
public final class CapabilitySet {
    private final Provider provider;
    private final Optional<DelaysCapability> delays;
    private final Optional<DedupeCapability> dedupe;
    private final Optional<TopicsCapability> topics;
    private final Optional<BroadcastCapability> broadcast;
    private final Map<Capability, String> sources = new LinkedHashMap<>();

    public CapabilitySet(
            Provider provider,
            DelaysCapability suppliedDelays,
            DedupeCapability suppliedDedupe,
            TopicsCapability suppliedTopics) {
        this(provider, suppliedDelays, suppliedDedupe, suppliedTopics, null);
    }

    public CapabilitySet(
            Provider provider,
            DelaysCapability suppliedDelays,
            DedupeCapability suppliedDedupe,
            TopicsCapability suppliedTopics,
            BroadcastCapability suppliedBroadcast) {
        this.provider = provider;
        this.delays = suppliedDelays != null ? Optional.of(suppliedDelays) : provider.delays();
        this.dedupe = suppliedDedupe != null ? Optional.of(suppliedDedupe) : provider.dedupe();
        this.topics = suppliedTopics != null ? Optional.of(suppliedTopics) : provider.topics();
        this.broadcast = suppliedBroadcast != null ? Optional.of(suppliedBroadcast) : provider.broadcast();
        sources.put(Capability.JOBS, provider.name());
        sources.put(
                Capability.DELAYS,
                delays.map(d -> source(d.backend(), suppliedDelays != null)).orElse(null));
        sources.put(
                Capability.DEDUPE,
                dedupe.map(d -> source(d.backend(), suppliedDedupe != null)).orElse(null));
        sources.put(
                Capability.TOPICS,
                topics.map(t -> source(t.backend(), suppliedTopics != null)).orElse(null));
        sources.put(
                Capability.BROADCAST,
                broadcast
                        .map(b -> source(b.backend(), suppliedBroadcast != null))
                        .orElse(null));
    }

    private static String source(String backend, boolean supplied) {
        return supplied ? backend + " (supplied)" : backend;
    }

    public String providerName() {
        return provider.name();
    }

    public JobsCapability jobs() {
        return provider.jobs();
    }

    public Optional<DelaysCapability> delaysIfPresent() {
        return delays;
    }

    public DelaysCapability delays() {
        return delays.orElseThrow(() -> missing(Capability.DELAYS));
    }

    public DedupeCapability dedupe() {
        return dedupe.orElseThrow(() -> missing(Capability.DEDUPE));
    }

    public TopicsCapability topics() {
        return topics.orElseThrow(() -> missing(Capability.TOPICS));
    }

    public BroadcastCapability broadcast() {
        return broadcast.orElseThrow(() -> missing(Capability.BROADCAST));
    }

    public Set<Capability> present() {
        Set<Capability> present = EnumSet.noneOf(Capability.class);
        sources.forEach((capability, source) -> {
            if (source != null) {
                present.add(capability);
            }
        });
        return present;
    }

    /** Fails at start-up when any of {@code required} is missing. */
    public void require(Set<Capability> required) {
        for (Capability capability : required) {
            if (sources.get(capability) == null) {
                throw missing(capability);
            }
        }
    }

    public CapabilityMissingException missing(Capability capability) {
        return new CapabilityMissingException(provider.name(), capability, hint(capability));
    }

    private String hint(Capability capability) {
        return switch (capability) {
            case DELAYS ->
                "supply one, e.g. Worker.builder().delays(RedisDelays.connect(\"redis://host:6379\"))"
                        + " (or `delays: {name: redis, urlEnv: ...}` in runtime.yaml)";
            case DEDUPE ->
                "supply one, e.g. Worker.builder().dedupe(RedisDedupe.connect(\"redis://host:6379\"))"
                        + " (or `dedupe: {name: redis, urlEnv: ...}` in runtime.yaml)";
            case TOPICS ->
                "use a provider with topics (redis, rabbitmq, kafka) or supply one with"
                        + " Worker.builder().topics(...)";
            case BROADCAST ->
                "use a provider with broadcast (redis, rabbitmq, kafka) or supply one with"
                        + " Worker.builder().broadcast(...)";
            case JOBS -> "every provider must supply jobs";
        };
    }

    /** The human-readable report logged at start-up. */
    public String report() {
        return sources.entrySet().stream()
                .map(e -> String.format(
                        "  %-7s %s", e.getKey().label(), e.getValue() == null ? "MISSING" : "from " + e.getValue()))
                .collect(Collectors.joining("\n", "capabilities (provider " + provider.name() + "):\n", ""));
    }

    public Map<Capability, String> sources() {
        return Map.copyOf(sources.entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
}
