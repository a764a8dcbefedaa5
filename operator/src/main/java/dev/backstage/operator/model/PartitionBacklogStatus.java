package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Consumer lag of one Kafka partition, as last measured. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PartitionBacklogStatus {
    @JsonPropertyDescription("The partition number.")
    private Integer partition;

    @JsonPropertyDescription("Records not yet committed by the pool's consumer group: endOffset - committedOffset.")
    private Long lag;

    @JsonPropertyDescription("The partition's log end offset.")
    private Long endOffset;

    @JsonPropertyDescription("The group's committed offset; absent when the group never committed (the lag then counts"
            + " from the log start).")
    private Long committedOffset;

    public PartitionBacklogStatus() {}

    public PartitionBacklogStatus(Integer partition, Long lag, Long endOffset, Long committedOffset) {
        this.partition = partition;
        this.lag = lag;
        this.endOffset = endOffset;
        this.committedOffset = committedOffset;
    }

    public Integer getPartition() {
        return partition;
    }

    public void setPartition(Integer partition) {
        this.partition = partition;
    }

    public Long getLag() {
        return lag;
    }

    public void setLag(Long lag) {
        this.lag = lag;
    }

    public Long getEndOffset() {
        return endOffset;
    }

    public void setEndOffset(Long endOffset) {
        this.endOffset = endOffset;
    }

    public Long getCommittedOffset() {
        return committedOffset;
    }

    public void setCommittedOffset(Long committedOffset) {
        this.committedOffset = committedOffset;
    }
}
