package dev.backstage.operator.scaling.sim;

/** What a KEDA scaler reports as the metric, depending on the scaler and its settings. */
enum KedaMetric {
    /** Ready + unacknowledged: RabbitMQ scaler over the management API ({@code messages}). */
    READY_PLUS_UNACKED("ready + unacked (rabbitmq scaler, http protocol)"),
    /** Ready only: RabbitMQ scaler over AMQP (queue declare passive), Redis Streams {@code lagCount}. */
    READY_ONLY("ready only (rabbitmq scaler, amqp protocol / redis-streams lagCount)"),
    /**
     * Kafka consumer-group lag (end offset - committed, so in-flight records count), and with the default
     * {@code allowIdleConsumers=false}: {@code if (lag / lagThreshold) > partitions} (integer division)
     * {@code then lag = partitions * lagThreshold}.
     */
    KAFKA_LAG_CAPPED("lag, capped at partitions x lagThreshold (kafka scaler)");

    final String description;

    KedaMetric(String description) {
        this.description = description;
    }

    long value(SimulatedCluster cluster, long threshold, int partitions) {
        return switch (this) {
            case READY_PLUS_UNACKED -> cluster.queued() + cluster.inFlight();
            case READY_ONLY -> cluster.queued();
            case KAFKA_LAG_CAPPED -> {
                long lag = cluster.queued() + cluster.inFlight();
                yield lag / threshold > partitions ? partitions * threshold : lag;
            }
        };
    }
}
