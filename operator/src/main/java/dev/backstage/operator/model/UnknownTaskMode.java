package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a worker does with a job whose task it has no handler for (docs/wire-format.md). */
public enum UnknownTaskMode {
    @JsonProperty("dead-letter")
    DEAD_LETTER("dead-letter"),
    @JsonProperty("leave-pending")
    LEAVE_PENDING("leave-pending");

    private final String wire;

    UnknownTaskMode(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
