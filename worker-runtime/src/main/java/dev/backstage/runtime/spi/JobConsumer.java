package dev.backstage.runtime.spi;

import java.util.Optional;

/** A running consumer. Shutdown is two-step so in-flight work can settle between the steps. */
public interface JobConsumer extends AutoCloseable, Liveness {
    /** Stop taking new deliveries; settlement of those already handed out must keep working. */
    void stopFetching();

    /** Flush pending acks and release connections. Unsettled deliveries stay with the broker. */
    @Override
    void close();

    @Override
    default Optional<String> failure() {
        return Optional.empty();
    }
}
