package dev.backstage.testsupport;

/**
 * The broker groups {@code bin/lib.sh} starts once per machine and every test run shares: a test that kills one
 * of their nodes must not overlap a test (in this JVM or another, e.g. the other lane of {@code bin/test}) that
 * expects them whole. See {@link SharedBrokerLock}.
 */
public enum SharedBroker {
    /** The 6-node Redis Cluster on 127.0.0.1:7000-7005. */
    REDIS_CLUSTER,
    /** The Sentinel group: primary 6380, replicas 6381-6382, sentinels 26379-26381. */
    REDIS_SENTINEL,
    /** The 3-node RabbitMQ cluster on 127.0.0.1:5681-5683. */
    RABBITMQ_CLUSTER;

    String fileName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + ".lock";
    }
}
