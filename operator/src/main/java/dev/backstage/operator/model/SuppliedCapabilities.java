package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** Capabilities supplied separately from the provider. Absent means "the provider's own, or none". */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.delays) || self.delays.backend == 'redis'",
        message = "only redis can supply delays separately: set capabilities.delays.backend to redis")
@ValidationRule(
        value = "!has(self.dedupe) || self.dedupe.backend == 'redis'",
        message = "only redis can supply dedupe separately: set capabilities.dedupe.backend to redis")
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
