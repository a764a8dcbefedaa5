package dev.backstage.operator.scaling.sim;

/**
 * What a replica can do and how the jobs are laid out.
 *
 * @param slotsPerReplica  jobs one replica runs at once (worker concurrency = prefetch)
 * @param serviceSeconds   fixed processing time of one job
 * @param partitions       Kafka partitions (each owned by one replica at a time), or 0 for a shared queue
 * @param startupSeconds   from pod creation to ready (image pulled, JVM up, connected)
 */
record Workload(int slotsPerReplica, double serviceSeconds, int partitions, double startupSeconds) {

    double perReplicaRate() {
        return slotsPerReplica / serviceSeconds;
    }

    boolean partitioned() {
        return partitions > 0;
    }

    String describe() {
        return String.format("%d slots x %.0f s jobs = %.2f jobs/s per replica, %s, pod start-up %.0f s",
                slotsPerReplica, serviceSeconds, perReplicaRate(),
                partitioned() ? partitions + " Kafka partitions" : "one shared queue", startupSeconds);
    }
}
