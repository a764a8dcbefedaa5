package dev.backstage.operator.console;

/**
 * One point of a pool's history, as the console samples it from the pool's status.
 *
 * @param atMs        when it was sampled (epoch milliseconds)
 * @param outstanding backlog: undelivered + in flight
 * @param inFlight    handed to workers, not yet settled
 * @param desired     desired replicas
 * @param ready       ready replicas
 * @param deadLetters dead letters across the pool's queues
 */
public record PoolSample(long atMs, long outstanding, long inFlight, int desired, int ready, long deadLetters) {}
