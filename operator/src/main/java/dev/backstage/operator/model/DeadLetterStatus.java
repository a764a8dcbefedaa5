package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Entries in the pool's dead-letter destinations. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DeadLetterStatus {
    @JsonPropertyDescription("Across the pool's queues.")
    private Long total;

    @JsonPropertyDescription("Per queue.")
    private List<QueueDeadLetterStatus> queues;

    public DeadLetterStatus() {}

    public DeadLetterStatus(Long total, List<QueueDeadLetterStatus> queues) {
        this.total = total;
        this.queues = queues;
    }

    public Long getTotal() {
        return total;
    }

    public void setTotal(Long total) {
        this.total = total;
    }

    public List<QueueDeadLetterStatus> getQueues() {
        return queues;
    }

    public void setQueues(List<QueueDeadLetterStatus> queues) {
        this.queues = queues;
    }
}
