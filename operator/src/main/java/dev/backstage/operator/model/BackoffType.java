package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Retry back-off shape (docs/wire-format.md). */
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
