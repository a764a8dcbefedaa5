package dev.backstage.operator.broker;

import java.util.Objects;

/**
 * Why a topology cannot be Ready: a {@link ReadyReason} and a message for the condition. The message has
 * already been scrubbed of secrets (see {@link SecretScrubber}); it may go to status, Events and logs.
 */
public final class TopologyProblem extends Exception {
    private final String reason;

    public TopologyProblem(String reason, String message) {
        super(Objects.requireNonNull(message, "message"), null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public String reason() {
        return reason;
    }
}
