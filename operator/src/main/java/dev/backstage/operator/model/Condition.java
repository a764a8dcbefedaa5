package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** A status condition, shaped like Kubernetes' {@code metav1.Condition}. Change them through {@link Conditions}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Condition {
    @Required
    @JsonPropertyDescription("Condition type, e.g. Ready.")
    private String type;

    @Required
    @JsonPropertyDescription("True, False or Unknown.")
    private String status;

    @JsonPropertyDescription("A CamelCase word from a closed set that says why (e.g. TopologyNotFound).")
    private String reason;

    @JsonPropertyDescription("A human-readable explanation.")
    private String message;

    @JsonPropertyDescription("When status last changed (RFC 3339); kept while status stays the same.")
    private String lastTransitionTime;

    @JsonPropertyDescription("The metadata.generation this condition was computed from.")
    private Long observedGeneration;

    public Condition() {}

    public Condition(
            String type,
            String status,
            String reason,
            String message,
            String lastTransitionTime,
            Long observedGeneration) {
        this.type = type;
        this.status = status;
        this.reason = reason;
        this.message = message;
        this.lastTransitionTime = lastTransitionTime;
        this.observedGeneration = observedGeneration;
    }

    public String getType() {
        return type;
    }

    public void setType(String type) {
        this.type = type;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public String getLastTransitionTime() {
        return lastTransitionTime;
    }

    public void setLastTransitionTime(String lastTransitionTime) {
        this.lastTransitionTime = lastTransitionTime;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Condition other
                && Objects.equals(type, other.type)
                && Objects.equals(status, other.status)
                && Objects.equals(reason, other.reason)
                && Objects.equals(message, other.message)
                && Objects.equals(lastTransitionTime, other.lastTransitionTime)
                && Objects.equals(observedGeneration, other.observedGeneration);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, status, reason, message, lastTransitionTime, observedGeneration);
    }

    @Override
    public String toString() {
        return type + "=" + status + " (" + reason + ": " + message + ")";
    }
}
