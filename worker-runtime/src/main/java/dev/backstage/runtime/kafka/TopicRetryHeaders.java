package dev.backstage.runtime.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers of a topic message's retry and dead-letter copies (the value is the original record's bytes,
 * unchanged): {@code backstage-delivery-count} (the copy's delivery count), {@code backstage-due-at} (epoch ms the
 * retry may run), {@code backstage-original-topic}, {@code -partition} and {@code -offset} (where the message was
 * first published; a retry of a retry keeps them), and {@code backstage-error} (why the previous delivery failed,
 * or why the message was dead-lettered). Numbers are decimal text.
 */
final class TopicRetryHeaders {
    static final String DELIVERY_COUNT = "backstage-delivery-count";
    static final String DUE_AT = "backstage-due-at";
    static final String ORIGINAL_TOPIC = "backstage-original-topic";
    static final String ORIGINAL_PARTITION = "backstage-original-partition";
    static final String ORIGINAL_OFFSET = "backstage-original-offset";
    static final String ERROR = "backstage-error";

    private TopicRetryHeaders() {}

    /** The headers of a copy of {@code record} with {@code deliveryCount}, due at {@code dueAtMs} (0: no due time). */
    static Headers copyOf(ConsumerRecord<byte[], byte[]> record, int deliveryCount, long dueAtMs, String error) {
        RecordHeaders headers = new RecordHeaders();
        put(headers, DELIVERY_COUNT, Integer.toString(deliveryCount));
        if (dueAtMs > 0) {
            put(headers, DUE_AT, Long.toString(dueAtMs));
        }
        put(headers, ORIGINAL_TOPIC, originalTopic(record));
        put(headers, ORIGINAL_PARTITION, Integer.toString(originalPartition(record)));
        put(headers, ORIGINAL_OFFSET, Long.toString(originalOffset(record)));
        put(headers, ERROR, error == null ? "" : error);
        return headers;
    }

    /** {@code topic:partition:offset} where the message was first published. */
    static String originalId(ConsumerRecord<byte[], byte[]> record) {
        return originalTopic(record) + ":" + originalPartition(record) + ":" + originalOffset(record);
    }

    /** The copy's delivery count, or 0 for a record that is not a copy. */
    static int deliveryCount(ConsumerRecord<byte[], byte[]> record) {
        String n = text(record, DELIVERY_COUNT);
        return n == null ? 0 : (int) parse(n, 0);
    }

    /** When the retry copy may run (epoch ms), or 0. */
    static long dueAtMs(ConsumerRecord<byte[], byte[]> record) {
        String due = text(record, DUE_AT);
        return due == null ? 0 : parse(due, 0);
    }

    static String error(ConsumerRecord<byte[], byte[]> record) {
        return text(record, ERROR);
    }

    private static String originalTopic(ConsumerRecord<byte[], byte[]> record) {
        String topic = text(record, ORIGINAL_TOPIC);
        return topic == null ? record.topic() : topic;
    }

    private static int originalPartition(ConsumerRecord<byte[], byte[]> record) {
        String p = text(record, ORIGINAL_PARTITION);
        return p == null ? record.partition() : (int) parse(p, record.partition());
    }

    private static long originalOffset(ConsumerRecord<byte[], byte[]> record) {
        String o = text(record, ORIGINAL_OFFSET);
        return o == null ? record.offset() : parse(o, record.offset());
    }

    private static void put(RecordHeaders headers, String key, String value) {
        headers.add(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ConsumerRecord<byte[], byte[]> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null || h.value() == null
                ? null
                : StandardCharsets.UTF_8.decode(ByteBuffer.wrap(h.value())).toString();
    }

    private static long parse(String text, long fallback) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return fallback; // a foreign header: treated as absent
        }
    }
}
