package dev.backstage.runtime.spi;

import java.util.Optional;

/**
 * Per-job options carried on the wire: the producer's {@code attempts}, {@code backoff} and
 * {@code timeout}. Absent values are {@code null}; zero or negative values count as absent
 * (docs/wire-format.md: "attempts and timeout only when > 0").
 */
public record JobMeta(Integer attempts, Backoff backoff, Long timeoutMs) {
    public static final JobMeta NONE = new JobMeta(null, null, null);

    public JobMeta {
        if (attempts != null && attempts <= 0) {
            attempts = null;
        }
        if (timeoutMs != null && timeoutMs <= 0) {
            timeoutMs = null;
        }
    }

    public Optional<Integer> attemptsOpt() {
        return Optional.ofNullable(attempts);
    }

    public Optional<Backoff> backoffOpt() {
        return Optional.ofNullable(backoff);
    }

    public Optional<Long> timeoutMsOpt() {
        return Optional.ofNullable(timeoutMs);
    }
}
