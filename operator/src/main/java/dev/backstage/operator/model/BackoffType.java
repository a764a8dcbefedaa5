package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Retry back-off shape (WIRE.md §5.1). */
public enum BackoffType {
    @JsonProperty("fixed")
    FIXED("fixed"),
    @JsonProperty("exponential")
    EXPONENTIAL("exponential");

    private final String wire;

    BackoffType(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
