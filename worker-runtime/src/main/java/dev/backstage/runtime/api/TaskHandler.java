package dev.backstage.runtime.api;

/**
 * Application code for one task name. Returning normally acks the delivery (after enqueueing the
 * next task, if any); throwing sends it through the retry policy.
 */
@FunctionalInterface
public interface TaskHandler<T> {
    Next handle(TaskContext context, T payload) throws Exception;
}
