package dev.backstage.runtime.spi;

import java.util.Objects;

/**
 * A topic subscription: {@code group == null} means fan-out (every worker process gets every
 * message); a named group shares the messages among its members.
 */
public record Subscription(String topic, String group, StartPosition start) {
    public Subscription {
        Objects.requireNonNull(topic, "topic");
        start = start == null ? StartPosition.LATEST : start;
    }

    public static Subscription fanOut(String topic) {
        return new Subscription(topic, null, StartPosition.LATEST);
    }

    public static Subscription group(String topic, String group) {
        return new Subscription(topic, group, StartPosition.LATEST);
    }

    public Subscription from(StartPosition position) {
        return new Subscription(topic, group, position);
    }

    public boolean isFanOut() {
        return group == null;
    }
}
