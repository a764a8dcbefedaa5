package dev.backstage.runtime.spi;

import java.util.List;

/**
 * The broker side of a topology, provider-neutral.
 *
 * @param consumerGroup the jobs consumer group (Redis group, Kafka group); RabbitMQ ignores it
 * @param topicSizing   partitions and replication factor per pub/sub topic, where given (Kafka uses them;
 *                      a topic without an entry gets the provider's default)
 */
public record TopologyRequest(
        List<QueueSpec> queues,
        List<String> topics,
        boolean deadLetter,
        String consumerGroup,
        List<QueueSpec> topicSizing) {
    public TopologyRequest {
        queues = List.copyOf(queues);
        topics = topics == null ? List.of() : List.copyOf(topics);
        topicSizing = topicSizing == null ? List.of() : List.copyOf(topicSizing);
    }

    public TopologyRequest(List<QueueSpec> queues, List<String> topics, boolean deadLetter, String consumerGroup) {
        this(queues, topics, deadLetter, consumerGroup, List.of());
    }

    /** The sizing given for a pub/sub topic, if any. */
    public java.util.Optional<QueueSpec> sizingOf(String topic) {
        return topicSizing.stream().filter(t -> t.name().equals(topic)).findFirst();
    }

    /** One queue; partitions and replication factor matter to Kafka only. */
    public record QueueSpec(String name, int partitions, short replicationFactor) {
        public static QueueSpec named(String name) {
            return new QueueSpec(name, 1, (short) 1);
        }
    }
}
