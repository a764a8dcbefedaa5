package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.ConfigurationException;
import java.util.Locale;

/**
 * The type of the durable queues the provider declares (provider option {@code queueType}).
 *
 * <ul>
 *   <li>{@code classic}: one copy on one node (RabbitMQ 4 no longer mirrors them); the library's default, so
 *       queues declared by earlier versions keep matching what a worker declares.
 *   <li>{@code quorum}: Raft-replicated on every cluster node (a majority must confirm each write), with a
 *       broker-side delivery limit that ends crash loops in the dead-letter queue ({@link QueueArguments}).
 * </ul>
 *
 * Broadcast queues and fan-out topic subscribers stay classic whatever this says: they are exclusive and
 * auto-delete (one per worker, gone with its connection), which a quorum queue cannot be.
 */
public enum QueueType {
    CLASSIC("classic"),
    QUORUM("quorum");

    private final String wire;

    QueueType(String wire) {
        this.wire = wire;
    }

    /** The value of {@code x-queue-type} and of the {@code queueType} option. */
    public String wire() {
        return wire;
    }

    static QueueType parse(String raw) {
        String value = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        for (QueueType type : values()) {
            if (type.wire.equals(value)) {
                return type;
            }
        }
        throw new ConfigurationException("rabbitmq option queueType must be classic or quorum, got '" + raw + "'");
    }
}
