package dev.backstage.runtime.kafka;

import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.KafkaCluster;

/**
 * The cluster shapes behaviour tests run on: the in-process single broker (development settings) and a 3-broker
 * cluster with every topic replicated 3 times and {@code min.insync.replicas} 2 (production settings). Tests of
 * behaviour that does not depend on the shape are parameterised over both.
 */
enum KafkaShape {
    ONE_BROKER(1, 0),
    THREE_BROKERS_RF3_MIN_ISR2(3, 2);

    final short replicationFactor;
    final short minInsyncReplicas;

    KafkaShape(int replicationFactor, int minInsyncReplicas) {
        this.replicationFactor = (short) replicationFactor;
        this.minInsyncReplicas = (short) minInsyncReplicas;
    }

    /** The shape's shared cluster (one per test JVM, started on first use). */
    String bootstrap() {
        return this == ONE_BROKER
                ? EmbeddedKafka.shared().bootstrapServers()
                : KafkaCluster.shared().bootstrapServers();
    }

    /** {@code settings} with the shape's replication. */
    KafkaSettings replicated(KafkaSettings settings) {
        return this == ONE_BROKER ? settings : settings.withReplication(replicationFactor, minInsyncReplicas);
    }
}
