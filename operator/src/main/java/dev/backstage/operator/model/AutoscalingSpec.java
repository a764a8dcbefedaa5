package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.config.Durations;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Backlog-driven scaling bounds and targets. When enabled, spec.replicas is ignored. Defaults match
 * {@code dev.backstage.operator.scaling.ScalingPolicy}'s, except minReplicas (1: scale-to-zero is opt-in).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",
        message = "autoscaling.minReplicas must be <= autoscaling.maxReplicas")
public class AutoscalingSpec {
    @Default("false")
    @JsonPropertyDescription("Scale the pool from backlog; spec.replicas is then ignored.")
    private Boolean enabled = Boolean.FALSE;

    @Default("1")
    @Min(0)
    @JsonPropertyDescription("Lower bound; 0 lets an idle pool scale to zero (never while work is in flight).")
    private Integer minReplicas = 1;

    @Default("10")
    @Min(1)
    @JsonPropertyDescription("Upper bound. With Kafka, replicas beyond the partition count stay idle.")
    private Integer maxReplicas = 10;

    @Default("10")
    @Min(1)
    @JsonPropertyDescription("Outstanding jobs (undelivered + in flight) one replica should carry.")
    private Integer targetBacklogPerReplica = 10;

    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.POSITIVE_RULE,
            message = "autoscaling.targetDrainTime must be greater than zero, e.g. 2m")
    @JsonPropertyDescription(
            "Optional: size the pool to clear the backlog within this time at the measured per-replica rate, e.g. 2m.")
    private String targetDrainTime;

    @Default("5s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.POSITIVE_RULE,
            message = "autoscaling.pollInterval must be greater than zero, e.g. 5s")
    @JsonPropertyDescription("How often backlog is measured.")
    private String pollInterval = "5s";

    @Default("1s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.POSITIVE_RULE,
            message = "autoscaling.zeroPollInterval must be greater than zero, e.g. 1s")
    @JsonPropertyDescription("How often backlog is measured while the pool is at zero replicas (when shorter than"
            + " pollInterval): the first job's wait for the scale-up. One broker probe per interval per pool at zero.")
    private String zeroPollInterval = "1s";

    @Default("60s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @JsonPropertyDescription("Stabilization window: scale down only to what the highest need seen within it allows.")
    private String scaleDownWindow = "60s";

    @Default("10s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @JsonPropertyDescription(
            "How long a new pod takes from creation to ready. Pods asked for now only work after it, so the pool is sized for the arrival rate expected podStartupTime + pollInterval from now; 0s looks one pollInterval ahead only.")
    private String podStartupTime = "10s";

    @Default("120s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.AT_MOST_ONE_HOUR_RULE,
            message = "autoscaling.scaleUpLookahead must be at most 1h, e.g. 120s")
    @JsonPropertyDescription(
            "Calm on the way up: while arrivals rise, a scale-up sizes for the rate expected this much further ahead (adding at most a quarter, or 3 replicas), so a rising wave is met in a few batches instead of one replica per poll. 0s sizes for podStartupTime + pollInterval only.")
    private String scaleUpLookahead = "120s";

    @Default("60s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.AT_MOST_ONE_HOUR_RULE,
            message = "autoscaling.scaleDownInterval must be at most 1h, e.g. 60s")
    @JsonPropertyDescription(
            "Calm on the way down: at most one scale-down per this interval (a quarter of it when the move at least halves the count, e.g. after a burst). 0s rate-limits nothing beyond scaleDownWindow.")
    private String scaleDownInterval = "60s";

    @Min(0)
    @JsonPropertyDescription("Optional: the replicas to run while the backlog cannot be read (broker unreachable,"
            + " credentials refused; see the BacklogAvailable condition), kept within [minReplicas, maxReplicas]."
            + " Unset holds the last count.")
    private Integer fallbackReplicas;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    /** {@code enabled}, treating an absent value as the schema default (false). */
    @JsonIgnore
    public boolean isOn() {
        return Boolean.TRUE.equals(enabled);
    }

    public Integer getMinReplicas() {
        return minReplicas;
    }

    public void setMinReplicas(Integer minReplicas) {
        this.minReplicas = minReplicas;
    }

    public Integer getMaxReplicas() {
        return maxReplicas;
    }

    public void setMaxReplicas(Integer maxReplicas) {
        this.maxReplicas = maxReplicas;
    }

    public Integer getTargetBacklogPerReplica() {
        return targetBacklogPerReplica;
    }

    public void setTargetBacklogPerReplica(Integer targetBacklogPerReplica) {
        this.targetBacklogPerReplica = targetBacklogPerReplica;
    }

    public String getTargetDrainTime() {
        return targetDrainTime;
    }

    public void setTargetDrainTime(String targetDrainTime) {
        this.targetDrainTime = targetDrainTime;
    }

    public String getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(String pollInterval) {
        this.pollInterval = pollInterval;
    }

    public String getZeroPollInterval() {
        return zeroPollInterval;
    }

    public void setZeroPollInterval(String zeroPollInterval) {
        this.zeroPollInterval = zeroPollInterval;
    }

    public String getPodStartupTime() {
        return podStartupTime;
    }

    public void setPodStartupTime(String podStartupTime) {
        this.podStartupTime = podStartupTime;
    }

    public String getScaleDownWindow() {
        return scaleDownWindow;
    }

    public void setScaleDownWindow(String scaleDownWindow) {
        this.scaleDownWindow = scaleDownWindow;
    }

    public String getScaleUpLookahead() {
        return scaleUpLookahead;
    }

    public void setScaleUpLookahead(String scaleUpLookahead) {
        this.scaleUpLookahead = scaleUpLookahead;
    }

    public String getScaleDownInterval() {
        return scaleDownInterval;
    }

    public void setScaleDownInterval(String scaleDownInterval) {
        this.scaleDownInterval = scaleDownInterval;
    }

    public Integer getFallbackReplicas() {
        return fallbackReplicas;
    }

    public void setFallbackReplicas(Integer fallbackReplicas) {
        this.fallbackReplicas = fallbackReplicas;
    }
}
