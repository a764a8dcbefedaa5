package dev.backstage.operator.autoscaler;

import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.runtime.spi.BacklogReport;
import java.time.Instant;
import java.util.Objects;

/**
 * One poll of a pool's backlog: the provider's report, or why there is none. An unavailable measurement carries no
 * figures at all, so nothing downstream can mistake it for an empty queue.
 *
 * @param at       when it was taken
 * @param report   the probe's report, {@code null} when unavailable
 * @param provider the provider that measured (for messages), {@code null} when none was reached
 * @param reason   CamelCase word for the BacklogAvailable condition when unavailable, else {@code null}
 * @param message  what went wrong, credentials scrubbed, when unavailable, else {@code null}
 */
public record BacklogMeasurement(Instant at, BacklogReport report, String provider, String reason, String message) {
    public BacklogMeasurement {
        Objects.requireNonNull(at, "at");
        if (report == null) {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    public static BacklogMeasurement measured(BacklogReport report, String provider) {
        return new BacklogMeasurement(report.measuredAt(), report, provider, null, null);
    }

    public static BacklogMeasurement unavailable(Instant at, String reason, String message) {
        return new BacklogMeasurement(at, null, null, reason, message);
    }

    public boolean available() {
        return report != null;
    }

    /** The autoscaler's view ({@link BacklogSample#of(BacklogReport, int)}: its counters summed over the queues). */
    public BacklogSample toSample(int readyReplicas) {
        if (!available()) {
            return BacklogSample.unavailable(at, readyReplicas, reason, message);
        }
        return BacklogSample.of(report, readyReplicas);
    }
}
