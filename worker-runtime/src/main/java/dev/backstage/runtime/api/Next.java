package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.ConfigurationException;
import java.time.Duration;
import java.util.Objects;

/**
 * What a handler returns: {@link #done()} or a next task. A next task is enqueued (or scheduled,
 * when it has a delay) <em>before</em> the current delivery is acked; if that hand-off fails, the
 * current delivery fails and goes through the retry policy.
 */
public record Next(String taskName, Object payload, Duration delay, String queue) {
    private static final Next DONE = new Next(null, null, Duration.ZERO, null);

    public Next {
        delay = delay == null ? Duration.ZERO : delay;
        if (delay.isNegative()) {
            throw new ConfigurationException("next-task delay must not be negative, got " + delay);
        }
    }

    public static Next done() {
        return DONE;
    }

    /** Chain {@code taskName} on the default queue, at once. */
    public static Next task(String taskName, Object payload) {
        Objects.requireNonNull(taskName, "taskName");
        return new Next(taskName, payload, Duration.ZERO, null);
    }

    public Next after(Duration delay) {
        return new Next(taskName, payload, delay, queue);
    }

    public Next onQueue(String queue) {
        return new Next(taskName, payload, delay, queue);
    }

    public boolean isDone() {
        return taskName == null;
    }
}
