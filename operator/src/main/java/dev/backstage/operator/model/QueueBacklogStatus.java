package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Outstanding work on one queue, as last measured. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueBacklogStatus {
    @JsonPropertyDescription("The queue's name, as in the topology.")
    private String queue;

    @JsonPropertyDescription("Waiting, not yet handed to any worker.")
    private Long undelivered;

    @JsonPropertyDescription("Handed out and not yet settled; absent when the broker cannot tell.")
    private Long inFlight;

    @JsonPropertyDescription("undelivered + inFlight.")
    private Long outstanding;

    @JsonPropertyDescription("When the oldest outstanding job was enqueued (RFC 3339), where the broker can tell;"
            + " its age is now minus this.")
    private String oldestEnqueuedAt;

    @JsonPropertyDescription("Kafka: lag per partition of the queue's topic.")
    private List<PartitionBacklogStatus> partitions;

    @JsonPropertyDescription("How a figure was obtained when it is not exact, from the provider's probe.")
    private String note;

    public QueueBacklogStatus() {}

    public QueueBacklogStatus(String queue, Long undelivered, Long inFlight, Long outstanding) {
        this.queue = queue;
        this.undelivered = undelivered;
        this.inFlight = inFlight;
        this.outstanding = outstanding;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
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

    public List<PartitionBacklogStatus> getPartitions() {
        return partitions;
    }

    public void setPartitions(List<PartitionBacklogStatus> partitions) {
        this.partitions = partitions;
    }

    public String getNote() {
        return note;
    }

    public void setNote(String note) {
        this.note = note;
    }
}
