package dev.backstage.runtime.spi;

import java.util.List;

/** Where a provider hands deliveries; implemented by the core. Must not block the fetch loop. */
@FunctionalInterface
public interface DeliverySink {
    void accept(Delivery delivery);

    /**
     * Several deliveries at once (one fetch's worth), in order: the core hands them to its handler threads with
     * one submission instead of one per delivery. Providers that fetch in batches should prefer it.
     */
    default void acceptAll(List<? extends Delivery> deliveries) {
        for (Delivery delivery : deliveries) {
            accept(delivery);
        }
    }
}
