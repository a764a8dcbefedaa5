package dev.backstage.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/** A latency job as the Kafka value carries it (docs/wire-format.md), decoded in one Jackson pass by a hand-written loop. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PingEnvelope(
        String taskName,
        Ping payload,
        Long enqueuedAt,
        Map<String, Object> meta,
        Integer deliveryCount,
        String jobId) {}
