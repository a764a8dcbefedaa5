package dev.backstage.runtime.spi;

/** Where a topics capability hands messages; implemented by the core. */
@FunctionalInterface
public interface TopicSink {
    void accept(TopicDelivery delivery);
}
