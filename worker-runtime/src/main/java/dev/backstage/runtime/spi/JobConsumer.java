package dev.backstage.runtime.spi;

/** A running consumer. Shutdown is two-step so in-flight work can settle between the steps. */
public interface JobConsumer extends AutoCloseable {
    /** Stop taking new deliveries; settlement of those already handed out must keep working. */
    void stopFetching();

    /** Flush pending acks and release connections. Unsettled deliveries stay with the broker. */
    @Override
    void close();
}
