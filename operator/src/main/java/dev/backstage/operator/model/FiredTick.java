package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One fired tick of a schedule and the job it enqueued (an entry of {@code status.schedules[].recentTicks}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FiredTick {
    @JsonPropertyDescription("The tick, RFC 3339.")
    private String tick;

    @JsonPropertyDescription("The broker's id of the job this tick enqueued; absent when another scheduler had"
            + " claimed the tick and enqueued it.")
    private String jobId;

    public FiredTick() {}

    public FiredTick(String tick, String jobId) {
        this.tick = tick;
        this.jobId = jobId;
    }

    public String getTick() {
        return tick;
    }

    public void setTick(String tick) {
        this.tick = tick;
    }

    public String getJobId() {
        return jobId;
    }

    public void setJobId(String jobId) {
        this.jobId = jobId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FiredTick that && Objects.equals(tick, that.tick) && Objects.equals(jobId, that.jobId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tick, jobId);
    }
}
