package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Dead letters of one queue. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueDeadLetterStatus {
    @JsonPropertyDescription("The queue whose dead letters these are.")
    private String queue;

    @JsonPropertyDescription("Entries in the queue's dead-letter queue.")
    private Long count;

    public QueueDeadLetterStatus() {}

    public QueueDeadLetterStatus(String queue, Long count) {
        this.queue = queue;
        this.count = count;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public Long getCount() {
        return count;
    }

    public void setCount(Long count) {
        this.count = count;
    }
}
