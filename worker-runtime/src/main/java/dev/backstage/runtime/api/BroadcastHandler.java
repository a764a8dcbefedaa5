package dev.backstage.runtime.api;

/**
 * Handles one broadcast message on this worker. Throwing retries it on this worker only, after the back-off, up
 * to the worker's max deliveries (the topic rule); then it is dropped for this worker and logged.
 */
@FunctionalInterface
public interface BroadcastHandler<T> {
    void handle(BroadcastContext context, T payload) throws Exception;
}
