package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The recent backlog samples of one pool, oldest first: an immutable value the operator keeps per pool and
 * replaces on every poll.
 *
 * <pre>{@code
 * history = history.append(sample, policy.historyRetention());
 * ScalingDecision decision = decider.decide(policy, deployment.replicas(), history);
 * }</pre>
 */
public record SampleHistory(List<BacklogSample> samples) {
    public SampleHistory {
        samples = List.copyOf(samples);
        for (int i = 1; i < samples.size(); i++) {
            if (samples.get(i).at().isBefore(samples.get(i - 1).at())) {
                throw new IllegalArgumentException("samples must be in time order; sample " + i + " at "
                        + samples.get(i).at() + " is before "
                        + samples.get(i - 1).at());
            }
        }
    }

    public static SampleHistory empty() {
        return new SampleHistory(List.of());
    }

    public static SampleHistory of(List<BacklogSample> samples) {
        return new SampleHistory(samples);
    }

    /**
     * Adds the newest sample and drops what is older than {@code retention} before it. A sample older than
     * the newest one (a clock step back, an out-of-order poll) replaces the history rather than corrupting
     * its order: rates across a clock jump would be nonsense anyway.
     */
    public SampleHistory append(BacklogSample sample, Duration retention) {
        Objects.requireNonNull(sample, "sample");
        List<BacklogSample> kept = new ArrayList<>(samples.size() + 1);
        if (latest() == null || !sample.at().isBefore(latest().at())) {
            Instant cutoff = sample.at().minus(retention);
            for (BacklogSample old : samples) {
                if (!old.at().isBefore(cutoff)) {
                    kept.add(old);
                }
            }
        }
        kept.add(sample);
        return new SampleHistory(kept);
    }

    public boolean isEmpty() {
        return samples.isEmpty();
    }

    public int size() {
        return samples.size();
    }

    public BacklogSample get(int index) {
        return samples.get(index);
    }

    /** The newest sample, or {@code null} when empty. */
    public BacklogSample latest() {
        return samples.isEmpty() ? null : samples.get(samples.size() - 1);
    }
}
