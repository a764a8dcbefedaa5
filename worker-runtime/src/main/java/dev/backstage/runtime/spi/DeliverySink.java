package dev.backstage.runtime.spi;

/** Where a provider hands deliveries; implemented by the core. Must not block the fetch loop. */
@FunctionalInterface
public interface DeliverySink {
    void accept(Delivery delivery);
}
