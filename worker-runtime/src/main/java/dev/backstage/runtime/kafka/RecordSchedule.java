package dev.backstage.runtime.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * When a fetched record may be handed out. A record not yet due waits in the poll loop's hand-out queue (a
 * priority queue by due time: no thread and no polling per record) and stays uncommitted meanwhile, so a crash
 * reads it again from Kafka. Poll thread only.
 */
interface RecordSchedule {
    /** Every record at once (jobs). */
    RecordSchedule NOW = record -> 0;

    /** Epoch milliseconds the record is due at; 0 or a past time for at once. */
    long dueAtMs(ConsumerRecord<byte[], byte[]> record);
}
