package dev.backstage.runtime.spi;

import java.util.List;

/**
 * Measures outstanding work per queue for the operator's status and autoscaler. Throws
 * {@link BacklogUnavailableException} when the broker cannot be read, never returns a silent 0.
 */
public interface BacklogProbe {
    BacklogReport measure(List<String> queues, String consumerGroup);
}
