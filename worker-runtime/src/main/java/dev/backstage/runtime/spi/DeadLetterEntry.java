package dev.backstage.runtime.spi;

/** One dead-lettered job as stored by the broker. Absent fields are null (seed writers omit some). */
public record DeadLetterEntry(
        String id,
        String queue,
        String taskName,
        String payloadJson,
        String error,
        Integer deliveryCount,
        Long deadLetteredAtMs,
        String originalId,
        Long enqueuedAtMs) {}
