package dev.backstage.runtime.spi;

/** A running topic subscription. */
public interface TopicConsumer extends AutoCloseable {
    @Override
    void close();
}
