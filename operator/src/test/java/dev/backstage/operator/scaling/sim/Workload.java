package dev.backstage.operator.scaling.sim;

/**
 * What a replica can do and how the jobs are laid out.
 *
 * @param slotsPerReplica  jobs one replica runs at once (worker concurrency = prefetch)
 * @param serviceSeconds   processing time of one job: fixed, or the mean of an exponential distribution
 * @param partitions       Kafka partitions (each owned by one replica at a time), or 0 for a shared queue
 * @param startupSeconds   from pod creation to ready (image pulled, JVM up, connected)
 * @param exponential      job times drawn from an exponential distribution with that mean (seeded per run, the
 *                         same job sizes for every autoscaler), instead of all equal
 */
record Workload(
        int slotsPerReplica, double serviceSeconds, int partitions, double startupSeconds, boolean exponential) {

    Workload(int slotsPerReplica, double serviceSeconds, int partitions, double startupSeconds) {
        this(slotsPerReplica, serviceSeconds, partitions, startupSeconds, false);
    }

    static Workload exponential(int slotsPerReplica, double meanSeconds, double startupSeconds) {
        return new Workload(slotsPerReplica, meanSeconds, 0, startupSeconds, true);
    }

    double perReplicaRate() {
        return slotsPerReplica / serviceSeconds;
    }

    boolean partitioned() {
        return partitions > 0;
    }

    String describe() {
        return String.format(
                "%d slots x %s%.0f s jobs = %.2f jobs/s per replica, %s, pod start-up %.0f s",
                slotsPerReplica,
                exponential ? "exponential, mean " : "",
                serviceSeconds,
                perReplicaRate(),
                partitioned() ? partitions + " Kafka partitions" : "one shared queue",
                startupSeconds);
    }
}
