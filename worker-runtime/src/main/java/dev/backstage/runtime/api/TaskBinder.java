package dev.backstage.runtime.api;

/**
 * What a {@link TaskModule} registers: task handlers by name, topic handlers by topic name, and broadcast handlers
 * by broadcast task name.
 */
public interface TaskBinder {
    <T> TaskBinder task(String taskName, Class<T> payloadType, TaskHandler<T> handler);

    <T> TaskBinder task(String taskName, Class<T> payloadType, TaskOptions options, TaskHandler<T> handler);

    /** The handler for a topic; which subscriptions use it (fan-out or a group) is configuration. */
    <T> TaskBinder topic(String topic, Class<T> payloadType, TopicHandler<T> handler);

    /** The handler this worker runs for every broadcast of {@code task} (see {@link Worker#onBroadcast}). */
    <T> TaskBinder broadcast(String task, Class<T> payloadType, BroadcastHandler<T> handler);
}
