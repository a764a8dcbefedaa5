package dev.backstage.runtime.api;

/** What a worker has settled since it started: deliveries received, then how each was settled. */
public record WorkerTotals(long deliveries, long acks, long retries, long deadLetters) {}
