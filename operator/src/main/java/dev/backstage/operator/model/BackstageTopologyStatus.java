package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** What the operator last observed of a topology. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackstageTopologyStatus {
    @JsonPropertyDescription("The metadata.generation the status reflects.")
    private Long observedGeneration;

    @JsonPropertyDescription("Ready and related conditions.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Each declared broker object and its state.")
    private List<BrokerObjectStatus> objects;

    @JsonPropertyDescription("Per capability: which backend supplies it, or that it is missing.")
    private List<CapabilityStatus> capabilities;

    @JsonPropertyDescription("Per schedule: last fired and next tick, missed ticks, last error. Written by the"
            + " schedule firing only (the topology reconciler leaves it alone).")
    private List<ScheduleStatus> schedules;

    @JsonPropertyDescription("How many schedules there are and how many are suspended, e.g. '2 (1 suspended)'."
            + " Written by the schedule firing.")
    private String scheduleSummary;

    @JsonPropertyDescription("The latest tick fired by any schedule, RFC 3339. Written by the schedule firing.")
    private String lastFiredTick;

    public String getScheduleSummary() {
        return scheduleSummary;
    }

    public void setScheduleSummary(String scheduleSummary) {
        this.scheduleSummary = scheduleSummary;
    }

    public String getLastFiredTick() {
        return lastFiredTick;
    }

    public void setLastFiredTick(String lastFiredTick) {
        this.lastFiredTick = lastFiredTick;
    }

    public List<ScheduleStatus> getSchedules() {
        return schedules;
    }

    public void setSchedules(List<ScheduleStatus> schedules) {
        this.schedules = schedules;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public List<BrokerObjectStatus> getObjects() {
        return objects;
    }

    public void setObjects(List<BrokerObjectStatus> objects) {
        this.objects = objects;
    }

    public List<CapabilityStatus> getCapabilities() {
        return capabilities;
    }

    public void setCapabilities(List<CapabilityStatus> capabilities) {
        this.capabilities = capabilities;
    }
}
