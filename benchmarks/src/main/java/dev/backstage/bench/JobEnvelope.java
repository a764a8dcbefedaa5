package dev.backstage.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/**
 * A whole job as the RabbitMQ body and the Kafka value carry it (docs/wire-format.md): what a hand-written consumer or a
 * Spring listener decodes in one Jackson pass, envelope and payload together.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record JobEnvelope(
        String taskName, Job payload, Long enqueuedAt, Map<String, Object> meta, Integer deliveryCount, String jobId) {}
