package dev.backstage.runtime.core;

import dev.backstage.runtime.api.DuplicateTaskException;
import dev.backstage.runtime.api.TaskHandler;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.spi.ConfigurationException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Task name → handler. A name may be registered once. */
public final class TaskRegistry {
    private final Map<String, RegisteredTask<?>> tasks = new ConcurrentHashMap<>();

    public <T> void register(String name, Class<T> payloadType, TaskOptions options, TaskHandler<T> handler) {
        Objects.requireNonNull(payloadType, "payloadType");
        Objects.requireNonNull(handler, "handler");
        if (name == null || name.isBlank()) {
            throw new ConfigurationException("task name must not be blank");
        }
        RegisteredTask<T> task =
                new RegisteredTask<>(name, payloadType, handler, options == null ? TaskOptions.defaults() : options);
        if (tasks.putIfAbsent(name, task) != null) {
            throw new DuplicateTaskException(name);
        }
    }

    public Optional<RegisteredTask<?>> find(String name) {
        return Optional.ofNullable(tasks.get(name));
    }

    public Set<String> names() {
        return Set.copyOf(tasks.keySet());
    }

    public boolean isEmpty() {
        return tasks.isEmpty();
    }
}
