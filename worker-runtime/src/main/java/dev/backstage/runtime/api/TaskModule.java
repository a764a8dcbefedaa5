package dev.backstage.runtime.api;

/**
 * A bundle of task handlers, discovered by the container main with {@link java.util.ServiceLoader}: list
 * implementations in {@code META-INF/services/dev.backstage.runtime.api.TaskModule} inside your jar and
 * build your image FROM the runtime image with that jar on the classpath.
 */
public interface TaskModule {
    void register(TaskBinder binder);
}
