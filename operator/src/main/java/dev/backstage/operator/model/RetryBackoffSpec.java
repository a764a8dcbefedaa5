package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.config.Durations;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The pool's default retry back-off; tasks and jobs may override it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RetryBackoffSpec {
    @Default("exponential")
    @JsonPropertyDescription("fixed: wait delay each time; exponential: delay × 2^(deliveries−2), capped at maxDelay.")
    private BackoffType type = BackoffType.EXPONENTIAL;

    @Required
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(value = Durations.POSITIVE_RULE, message = "retryBackoff.delay must be greater than zero, e.g. 1s")
    @JsonPropertyDescription("Base wait, e.g. 1s.")
    private String delay;

    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.POSITIVE_RULE,
            message = "retryBackoff.maxDelay must be greater than zero, e.g. 5m")
    @JsonPropertyDescription("Cap for exponential back-off, e.g. 5m (default 1h).")
    private String maxDelay;

    public RetryBackoffSpec() {}

    public RetryBackoffSpec(BackoffType type, String delay, String maxDelay) {
        this.type = type;
        this.delay = delay;
        this.maxDelay = maxDelay;
    }

    public BackoffType getType() {
        return type;
    }

    public void setType(BackoffType type) {
        this.type = type;
    }

    public String getDelay() {
        return delay;
    }

    public void setDelay(String delay) {
        this.delay = delay;
    }

    public String getMaxDelay() {
        return maxDelay;
    }

    public void setMaxDelay(String maxDelay) {
        this.maxDelay = maxDelay;
    }
}
