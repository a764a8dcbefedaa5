package dev.backstage.runtime.main;

import dev.backstage.runtime.api.BroadcastHandler;
import dev.backstage.runtime.api.TaskBinder;
import dev.backstage.runtime.api.TaskHandler;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import java.util.HashMap;
import java.util.Map;

/**
 * Installs {@link TaskModule}s into a {@link Worker}: task and broadcast handlers are registered at once; topic handlers
 * wait until configuration says which subscriptions (fan-out or a group) use them.
 */
public final class ModuleBinder implements TaskBinder {
    private final Worker worker;
    private final Map<String, TopicBinding<?>> topics = new HashMap<>();

    public ModuleBinder(Worker worker) {
        this.worker = worker;
    }

    public ModuleBinder install(TaskModule module) {
        module.register(this);
        return this;
    }

    @Override
    public <T> TaskBinder task(String taskName, Class<T> payloadType, TaskHandler<T> handler) {
        worker.register(taskName, payloadType, handler);
        return this;
    }

    @Override
    public <T> TaskBinder task(String taskName, Class<T> payloadType, TaskOptions options, TaskHandler<T> handler) {
        worker.register(taskName, payloadType, options, handler);
        return this;
    }

    @Override
    public <T> TaskBinder topic(String topic, Class<T> payloadType, TopicHandler<T> handler) {
        if (topics.putIfAbsent(topic, new TopicBinding<>(payloadType, handler)) != null) {
            throw new ConfigurationException("topic '" + topic + "' has two handlers; register one per topic");
        }
        return this;
    }

    @Override
    public <T> TaskBinder broadcast(String task, Class<T> payloadType, BroadcastHandler<T> handler) {
        worker.onBroadcast(task, payloadType, handler);
        return this;
    }

    /** Subscribes the worker to a configured topic subscription, with the handler a module registered. */
    public void subscribe(RuntimeConfig.TopicSubscription s) {
        TopicBinding<?> binding = topics.get(s.topic());
        if (binding == null) {
            throw new ConfigurationException("runtime config subscribes to topic '" + s.topic()
                    + "' but no task module registers a handler for it");
        }
        StartPosition start = "earliest".equalsIgnoreCase(s.start()) ? StartPosition.EARLIEST : StartPosition.LATEST;
        binding.subscribe(worker, new Subscription(s.topic(), s.group(), start));
    }

    private record TopicBinding<T>(Class<T> type, TopicHandler<T> handler) {
        void subscribe(Worker worker, Subscription subscription) {
            worker.subscribe(subscription, type, handler);
        }
    }
}
