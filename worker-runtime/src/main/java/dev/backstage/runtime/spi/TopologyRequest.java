package dev.backstage.runtime.spi;

import java.util.List;

/**
 * The broker side of a topology, provider-neutral.
 *
 * @param consumerGroup the jobs consumer group (Redis group, Kafka group); RabbitMQ ignores it
 */
public record TopologyRequest(List<QueueSpec> queues, List<String> topics, boolean deadLetter, String consumerGroup) {
    public TopologyRequest {
        queues = List.copyOf(queues);
        topics = topics == null ? List.of() : List.copyOf(topics);
    }

    /** One queue; partitions and replication factor matter to Kafka only. */
    public record QueueSpec(String name, int partitions, short replicationFactor) {
        public static QueueSpec named(String name) {
            return new QueueSpec(name, 1, (short) 1);
        }
    }
}
