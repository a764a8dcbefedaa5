package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a new topic subscription starts reading. */
public enum StartPositionSpec {
    @JsonProperty("earliest")
    EARLIEST("earliest"),
    @JsonProperty("latest")
    LATEST("latest");

    private final String wire;

    StartPositionSpec(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
