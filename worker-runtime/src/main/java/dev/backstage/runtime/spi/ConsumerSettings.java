package dev.backstage.runtime.spi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the core tells a provider when it starts consuming.
 *
 * @param queues        queue names (without prefix), in read-priority order
 * @param consumerId    this worker process's consumer name (unique per process)
 * @param prefetch      how many deliveries a fetch may ask for at once (bounded by flow)
 * @param flow          the in-flight allowance
 * @param delays        the resolved delays capability, for providers whose retry needs one
 */
public record ConsumerSettings(
        List<String> queues, String consumerId, int prefetch, FlowControl flow, Optional<DelaysCapability> delays) {
    public ConsumerSettings {
        queues = List.copyOf(queues);
        Objects.requireNonNull(consumerId, "consumerId");
        Objects.requireNonNull(flow, "flow");
        delays = delays == null ? Optional.empty() : delays;
    }
}
