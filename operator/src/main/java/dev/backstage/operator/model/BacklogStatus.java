package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** The pool's backlog: totals across its queues, and each queue. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BacklogStatus {
    @JsonPropertyDescription("Waiting, not yet handed to any worker.")
    private Long undelivered;

    @JsonPropertyDescription("Handed out and not yet settled.")
    private Long inFlight;

    @JsonPropertyDescription("undelivered + inFlight: what the autoscaler counts.")
    private Long outstanding;

    @JsonPropertyDescription(
            "When the oldest outstanding job of any queue was enqueued (RFC 3339), where the broker" + " can tell.")
    private String oldestEnqueuedAt;

    @JsonPropertyDescription("Per queue.")
    private List<QueueBacklogStatus> queues;

    public BacklogStatus() {}

    public BacklogStatus(Long undelivered, Long inFlight, Long outstanding, List<QueueBacklogStatus> queues) {
        this.undelivered = undelivered;
        this.inFlight = inFlight;
        this.outstanding = outstanding;
        this.queues = queues;
    }

    public Long getUndelivered() {
        return undelivered;
    }

    public void setUndelivered(Long undelivered) {
        this.undelivered = undelivered;
    }

    public Long getInFlight() {
        return inFlight;
    }

    public void setInFlight(Long inFlight) {
        this.inFlight = inFlight;
    }

    public Long getOutstanding() {
        return outstanding;
    }

    public void setOutstanding(Long outstanding) {
        this.outstanding = outstanding;
    }

    public String getOldestEnqueuedAt() {
        return oldestEnqueuedAt;
    }

    public void setOldestEnqueuedAt(String oldestEnqueuedAt) {
        this.oldestEnqueuedAt = oldestEnqueuedAt;
    }

    public List<QueueBacklogStatus> getQueues() {
        return queues;
    }

    public void setQueues(List<QueueBacklogStatus> queues) {
        this.queues = queues;
    }
}
