package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Duration;

/**
 * The one place that decides what a failed delivery becomes (docs/wire-format.md).
 *
 * <p>{@code max = attempts (job, if > 0) ?? maxDeliveries (task) ?? maxDeliveries (worker)}; a
 * failure at {@code deliveryCount > max} is dead-lettered, otherwise retried after
 * {@code backoff(deliveryCount)} with {@code backoff = job ?? task ?? worker}. As in the seed SDKs, a
 * job that always fails therefore runs {@code max + 1} times.
 */
public record RetryPolicy(int maxDeliveries, Backoff defaultBackoff) {

    public sealed interface Decision permits Retry, DeadLetter {}

    public record Retry(Duration delay) implements Decision {}

    public record DeadLetter(String why) implements Decision {}

    public int maxFor(JobMeta meta, TaskOptions task) {
        if (meta.attempts() != null) {
            return meta.attempts();
        }
        if (task.maxDeliveries() != null) {
            return task.maxDeliveries();
        }
        return maxDeliveries;
    }

    public Decision afterFailure(int deliveryCount, JobMeta meta, TaskOptions task) {
        int max = maxFor(meta, task);
        if (deliveryCount > max) {
            return new DeadLetter("gave up after " + deliveryCount + " deliveries (max " + max + " retries)");
        }
        Backoff backoff =
                meta.backoff() != null ? meta.backoff() : task.backoff() != null ? task.backoff() : defaultBackoff;
        return new Retry(Duration.ofMillis(backoff.delayFor(deliveryCount)));
    }

    /**
     * A delivery that arrives already past its allowance never settled (its worker kept dying while
     * running it): dead-letter it without running it again, so a poison job cannot crash-loop a fleet.
     */
    public boolean exhaustedBeforeRun(int deliveryCount, JobMeta meta, TaskOptions task) {
        return deliveryCount > maxFor(meta, task) + 1;
    }
}
