package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.ArrayList;
import java.util.List;

/**
 * What the operator last observed of a pool. One writer per field: the pool reconciler owns observedGeneration,
 * heartbeatTime, replicas, updatedReplicas, selector, readyReplicas, the Ready and Scaling conditions, and desiredReplicas while autoscaling is off (= spec.replicas); the
 * autoscaler owns desiredReplicas while autoscaling is on, backlog, deadLetters, backlogMeasuredAt, the scale
 * fields and its own conditions. Conditions are a list-map keyed by type, so server-side apply keeps each
 * condition's owner.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackstageWorkerPoolStatus {
    @JsonPropertyDescription("The metadata.generation the status reflects.")
    private Long observedGeneration;

    @JsonPropertyDescription(
            "Ready (the pool does its work), Scaling (replicas converging on the desired count), BacklogAvailable,"
                    + " ScalingLimited, ...")
    private List<Condition> conditions = new ArrayList<>();

    @StatusReplicas
    @JsonPropertyDescription("Worker pods (from the Deployment); the /scale subresource's status.replicas.")
    private Integer replicas;

    @LabelSelector
    @JsonPropertyDescription("The label selector of the pool's worker pods, as a string (the /scale subresource's"
            + " selector, which a HorizontalPodAutoscaler reads).")
    private String selector;

    @JsonPropertyDescription("Ready worker pods (from the Deployment).")
    private Integer readyReplicas;

    @JsonPropertyDescription("Rollout progress: worker pods running the pool's current pod template (the Deployment's"
            + " updatedReplicas). Below replicas while a change of image, env or settings rolls out.")
    private Integer updatedReplicas;

    @JsonPropertyDescription("Replicas the pool should run: spec.replicas, or the autoscaler's decision.")
    private Integer desiredReplicas;

    @JsonPropertyDescription("Last measured backlog.")
    private BacklogStatus backlog;

    @JsonPropertyDescription("Last measured dead letters.")
    private DeadLetterStatus deadLetters;

    @JsonPropertyDescription(
            "When backlog and deadLetters were measured (RFC 3339): refreshed when a figure changes and"
                    + " at least every 10 minutes while the broker can be read (BacklogAvailable=True says they are measured"
                    + " every pollInterval); kept, with the last good figures, while it cannot (see the BacklogAvailable"
                    + " condition).")
    private String backlogMeasuredAt;

    @JsonPropertyDescription(
            "When the operator last wrote this pool's status (RFC 3339): with every write, and at least"
                    + " every heartbeat interval (2 minutes by default) while nothing changes. Older than two intervals = no"
                    + " operator is reconciling the pool and the rest of the status may be stale.")
    private String heartbeatTime;

    @JsonPropertyDescription("When the autoscaler last changed desiredReplicas (RFC 3339).")
    private String lastScaleTime;

    @JsonPropertyDescription("Why the autoscaler last changed desiredReplicas.")
    private String lastScaleReason;

    @JsonPropertyDescription("Pod creation to Ready, the median over the pool's newest pods (Go duration, e.g. 12s),"
            + " as measured by the autoscaler from the pods it runs; once 3 pods were seen Ready it replaces"
            + " spec.autoscaling.podStartupTime in the scaling decision. Absent until then.")
    private String measuredPodStartupTime;

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

    public Integer getReplicas() {
        return replicas;
    }

    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }

    public String getSelector() {
        return selector;
    }

    public void setSelector(String selector) {
        this.selector = selector;
    }

    public Integer getReadyReplicas() {
        return readyReplicas;
    }

    public void setReadyReplicas(Integer readyReplicas) {
        this.readyReplicas = readyReplicas;
    }

    public Integer getUpdatedReplicas() {
        return updatedReplicas;
    }

    public void setUpdatedReplicas(Integer updatedReplicas) {
        this.updatedReplicas = updatedReplicas;
    }

    public Integer getDesiredReplicas() {
        return desiredReplicas;
    }

    public void setDesiredReplicas(Integer desiredReplicas) {
        this.desiredReplicas = desiredReplicas;
    }

    public BacklogStatus getBacklog() {
        return backlog;
    }

    public void setBacklog(BacklogStatus backlog) {
        this.backlog = backlog;
    }

    public DeadLetterStatus getDeadLetters() {
        return deadLetters;
    }

    public void setDeadLetters(DeadLetterStatus deadLetters) {
        this.deadLetters = deadLetters;
    }

    public String getBacklogMeasuredAt() {
        return backlogMeasuredAt;
    }

    public void setBacklogMeasuredAt(String backlogMeasuredAt) {
        this.backlogMeasuredAt = backlogMeasuredAt;
    }

    public String getHeartbeatTime() {
        return heartbeatTime;
    }

    public void setHeartbeatTime(String heartbeatTime) {
        this.heartbeatTime = heartbeatTime;
    }

    public String getLastScaleTime() {
        return lastScaleTime;
    }

    public void setLastScaleTime(String lastScaleTime) {
        this.lastScaleTime = lastScaleTime;
    }

    public String getLastScaleReason() {
        return lastScaleReason;
    }

    public void setLastScaleReason(String lastScaleReason) {
        this.lastScaleReason = lastScaleReason;
    }

    public String getMeasuredPodStartupTime() {
        return measuredPodStartupTime;
    }

    public void setMeasuredPodStartupTime(String measuredPodStartupTime) {
        this.measuredPodStartupTime = measuredPodStartupTime;
    }
}
