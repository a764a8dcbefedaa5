package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Capabilities supplied separately from the provider. Absent means "the provider's own, or none". */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SuppliedCapabilities {
    @JsonPropertyDescription("Backend for delayed jobs and retry back-off (required with Kafka jobs).")
    private CapabilityBackend delays;

    @JsonPropertyDescription("Backend for enqueue dedupe keys.")
    private CapabilityBackend dedupe;

    public SuppliedCapabilities() {}

    public SuppliedCapabilities(CapabilityBackend delays, CapabilityBackend dedupe) {
        this.delays = delays;
        this.dedupe = dedupe;
    }

    public CapabilityBackend getDelays() {
        return delays;
    }

    public void setDelays(CapabilityBackend delays) {
        this.delays = delays;
    }

    public CapabilityBackend getDedupe() {
        return dedupe;
    }

    public void setDedupe(CapabilityBackend dedupe) {
        this.dedupe = dedupe;
    }
}
