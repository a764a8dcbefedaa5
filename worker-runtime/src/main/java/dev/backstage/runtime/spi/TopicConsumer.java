package dev.backstage.runtime.spi;

import java.util.Optional;

/** A running topic subscription. */
public interface TopicConsumer extends AutoCloseable, Liveness {
    @Override
    void close();

    @Override
    default Optional<String> failure() {
        return Optional.empty();
    }
}
