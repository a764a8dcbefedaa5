package dev.backstage.operator.scaling.sim;

/** One job: when it arrived, its partition, and where it runs (mutable: the simulation moves it around). */
final class SimJob {
    final long arrivedAtMs;
    final int partition;
    /** How long it runs once started. */
    final long serviceMs;

    long startedAtMs = -1;
    long finishesAtMs = -1;
    SimPod runningOn;

    SimJob(long arrivedAtMs, int partition, long serviceMs) {
        this.arrivedAtMs = arrivedAtMs;
        this.partition = partition;
        this.serviceMs = serviceMs;
    }
}
