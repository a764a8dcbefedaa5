package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the schedule firing last did for one schedule of a topology (written by it alone). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScheduleStatus {
    /** How many fired ticks {@code recentTicks} keeps. */
    public static final int RECENT_TICKS = 5;

    @JsonPropertyDescription("The schedule's name (spec.schedules[].name).")
    private String name;

    @JsonPropertyDescription("The latest tick whose job was enqueued (by this operator or one before it), RFC 3339.")
    private String lastFiredTick;

    @JsonPropertyDescription("The latest fired ticks, newest first (at most " + ScheduleStatus.RECENT_TICKS + "),"
            + " each with the id of the job it enqueued.")
    private List<FiredTick> recentTicks;

    @JsonPropertyDescription("The latest tick not fired because it was past startingDeadlineSeconds, RFC 3339.")
    private String lastSkippedTick;

    @JsonPropertyDescription(
            "The next tick, RFC 3339; absent while suspended or when the expression never fires again.")
    private String nextTick;

    @JsonPropertyDescription("Ticks that never got a job (operator down, suspended, past the deadline), counted"
            + " since the schedule appeared.")
    private Long missedTicks;

    @JsonPropertyDescription("The last failure to fire a tick (broker error), cleared by the next fired tick.")
    private String lastError;

    public ScheduleStatus() {}

    public ScheduleStatus(String name) {
        this.name = name;
    }

    public ScheduleStatus copy() {
        ScheduleStatus copy = new ScheduleStatus(name);
        copy.lastFiredTick = lastFiredTick;
        copy.recentTicks = recentTicks == null ? null : new ArrayList<>(recentTicks);
        copy.lastSkippedTick = lastSkippedTick;
        copy.nextTick = nextTick;
        copy.missedTicks = missedTicks;
        copy.lastError = lastError;
        return copy;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getLastFiredTick() {
        return lastFiredTick;
    }

    public void setLastFiredTick(String lastFiredTick) {
        this.lastFiredTick = lastFiredTick;
    }

    public List<FiredTick> getRecentTicks() {
        return recentTicks;
    }

    public void setRecentTicks(List<FiredTick> recentTicks) {
        this.recentTicks = recentTicks;
    }

    /** Puts {@code fired} first in {@code recentTicks}, keeping the newest {@link #RECENT_TICKS}. */
    public void addRecentTick(FiredTick fired) {
        List<FiredTick> ticks = new ArrayList<>(RECENT_TICKS);
        ticks.add(fired);
        if (recentTicks != null) {
            recentTicks.stream()
                    .filter(t -> !Objects.equals(t.getTick(), fired.getTick()))
                    .limit(RECENT_TICKS - 1)
                    .forEach(ticks::add);
        }
        recentTicks = ticks;
    }

    public String getLastSkippedTick() {
        return lastSkippedTick;
    }

    public void setLastSkippedTick(String lastSkippedTick) {
        this.lastSkippedTick = lastSkippedTick;
    }

    public String getNextTick() {
        return nextTick;
    }

    public void setNextTick(String nextTick) {
        this.nextTick = nextTick;
    }

    public Long getMissedTicks() {
        return missedTicks;
    }

    public void setMissedTicks(Long missedTicks) {
        this.missedTicks = missedTicks;
    }

    public String getLastError() {
        return lastError;
    }

    public void setLastError(String lastError) {
        this.lastError = lastError;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScheduleStatus that
                && Objects.equals(name, that.name)
                && Objects.equals(lastFiredTick, that.lastFiredTick)
                && Objects.equals(recentTicks, that.recentTicks)
                && Objects.equals(lastSkippedTick, that.lastSkippedTick)
                && Objects.equals(nextTick, that.nextTick)
                && Objects.equals(missedTicks, that.missedTicks)
                && Objects.equals(lastError, that.lastError);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, lastFiredTick, recentTicks, lastSkippedTick, nextTick, missedTicks, lastError);
    }
}
