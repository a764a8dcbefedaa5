package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.Address;
import java.util.List;
import java.util.Map;

/**
 * The two RabbitMQ shapes the behaviour tests run on: the single node on 5672 with classic queues, and the 3-node
 * cluster {@code bin/lib.sh ensure_rabbitmq_cluster} starts (bs-a, bs-b, bs-c on 5681-5683) with quorum queues,
 * reached through the list of its nodes.
 */
enum RabbitMqShape {
    SINGLE_CLASSIC(
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672"),
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_MANAGEMENT", "http://127.0.0.1:15672"),
            List.of(),
            QueueType.CLASSIC),
    CLUSTER_QUORUM(
            "amqp://guest:guest@127.0.0.1:5681",
            "http://127.0.0.1:15681",
            List.of(new Address("127.0.0.1", 5681), new Address("127.0.0.1", 5682), new Address("127.0.0.1", 5683)),
            QueueType.QUORUM);

    /** Where {@code bin/lib.sh} keeps the cluster: per node a pid file and a start script; {@code ctl}. */
    static final String CLUSTER_DIR =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_CLUSTER_DIR", "/tmp/backstage-rabbitmq-cluster");

    final String url;
    final String management;
    final List<Address> addresses;
    final QueueType queueType;

    RabbitMqShape(String url, String management, List<Address> addresses, QueueType queueType) {
        this.url = url;
        this.management = management;
        this.addresses = addresses;
        this.queueType = queueType;
    }

    /** The provider options that select this shape. */
    Map<String, String> options() {
        if (addresses.isEmpty()) {
            return Map.of();
        }
        return Map.of(
                RabbitMqSettings.OPTION_QUEUE_TYPE,
                queueType.wire(),
                RabbitMqSettings.OPTION_ADDRESSES,
                String.join(
                        ",",
                        addresses.stream()
                                .map(a -> a.getHost() + ":" + a.getPort())
                                .toList()));
    }
}
