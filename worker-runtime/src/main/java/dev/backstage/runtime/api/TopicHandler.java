package dev.backstage.runtime.api;

/** Handles one topic message; throwing leaves it for redelivery up to the worker's max deliveries. */
@FunctionalInterface
public interface TopicHandler<T> {
    void handle(TopicContext context, T payload) throws Exception;
}
