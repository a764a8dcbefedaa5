package dev.backstage.operator.model;

/** Name patterns shared by the CR schemas (constants so annotations can use them). */
public final class ResourceNames {
    /** A Kubernetes object name (RFC 1123 subdomain). */
    public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

    /**
     * A broker-side name (queue, topic, consumer group, key prefix): safe in Redis keys, RabbitMQ queue names
     * and Kafka topic names alike (Kafka allows only {@code [a-zA-Z0-9._-]}).
     */
    public static final String BROKER_NAME = "^[a-zA-Z0-9._-]+$";

    private ResourceNames() {}
}
