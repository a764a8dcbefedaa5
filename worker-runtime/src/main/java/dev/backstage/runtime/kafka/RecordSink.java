package dev.backstage.runtime.kafka;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Where a {@link KafkaPollLoop} hands its records; called on the poll thread, must not block. */
interface RecordSink {
    void accept(ConsumerRecord<byte[], byte[]> record, SettlementTicket ticket);

    /** The records handed out in one turn, in order ({@code tickets.get(i)} is the ticket of record i). */
    default void acceptAll(List<ConsumerRecord<byte[], byte[]>> records, List<SettlementTicket> tickets) {
        for (int i = 0; i < records.size(); i++) {
            accept(records.get(i), tickets.get(i));
        }
    }
}
