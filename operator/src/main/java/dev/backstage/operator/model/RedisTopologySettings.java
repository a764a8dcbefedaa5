package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis-only topology settings (issue 23): the connection mode, when the URL's scheme does not say it (a managed
 * cluster endpoint handed out as redis://), and the replica wait on enqueues and settlements. The runtime reads
 * them as provider options; a URL that contradicts the mode is refused by the runtime with a one-line error.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.waitTimeoutMs) || (has(self.waitReplicas) && self.waitReplicas > 0)",
        message = RedisTopologySettings.NOTHING_WAITS)
public class RedisTopologySettings {
    public static final String NOTHING_WAITS = "waitTimeoutMs is set but waitReplicas is 0, so nothing waits: set"
            + " waitReplicas (e.g. 1) or remove waitTimeoutMs";

    @JsonPropertyDescription("standalone | cluster | sentinel. Unset: what the URL's scheme says (redis://, "
            + "redis+cluster://, redis-sentinel://). Set cluster for a managed cluster endpoint given as redis://.")
    private RedisConnectionMode mode;

    @Min(0)
    @Max(5)
    @JsonPropertyDescription("Replicas that must hold an enqueue or settlement before it is done (WAIT). 0 (default):"
            + " the primary's acknowledgement only; a primary killed right after may lose the write.")
    private Integer waitReplicas;

    @Min(1)
    @Max(60000)
    @JsonPropertyDescription("How long one WAIT may take, in ms (default 1000); fewer replicas by then fails the write,"
            + " which is retried.")
    private Integer waitTimeoutMs;

    public RedisTopologySettings() {}

    public RedisConnectionMode getMode() {
        return mode;
    }

    public void setMode(RedisConnectionMode mode) {
        this.mode = mode;
    }

    public Integer getWaitReplicas() {
        return waitReplicas;
    }

    public void setWaitReplicas(Integer waitReplicas) {
        this.waitReplicas = waitReplicas;
    }

    public Integer getWaitTimeoutMs() {
        return waitTimeoutMs;
    }

    public void setWaitTimeoutMs(Integer waitTimeoutMs) {
        this.waitTimeoutMs = waitTimeoutMs;
    }

    /** The runtime's provider options for these settings ({@code mode}, {@code waitReplicas}, {@code waitTimeoutMs}). */
    public static Map<String, String> options(BackstageTopologySpec spec) {
        RedisTopologySettings redis = spec.getRedis();
        Map<String, String> options = new TreeMap<>();
        if (spec.getProvider() != ProviderType.REDIS || redis == null) {
            return options;
        }
        if (redis.mode != null) {
            options.put("mode", redis.mode.wire());
        }
        if (redis.waitReplicas != null) {
            options.put("waitReplicas", redis.waitReplicas.toString());
        }
        if (redis.waitTimeoutMs != null) {
            options.put("waitTimeoutMs", redis.waitTimeoutMs.toString());
        }
        return options;
    }
}
