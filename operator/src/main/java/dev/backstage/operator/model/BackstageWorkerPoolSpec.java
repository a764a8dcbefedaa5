package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.config.Durations;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.List;

/** A pool of workers: image, topology, what it consumes, how it settles, how many replicas. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "(has(self.queues) && size(self.queues) > 0) || (has(self.topics) && size(self.topics) > 0)",
        message = "a pool must consume at least one queue or topic: set spec.queues or spec.topics")
@ValidationRule(
        value = "!(has(self.maxRetries) && has(self.maxDeliveries))",
        message = "spec.maxDeliveries is the old name of spec.maxRetries: set only spec.maxRetries")
public class BackstageWorkerPoolSpec {
    /** Env vars the operator sets (or fixes, like the health port) itself; a user value would break the contract. */
    public static final String RESERVED_ENV_RULE = "self.all(e, !(e.name in ['BACKSTAGE_CONFIG',"
            + " 'BACKSTAGE_PROVIDER_URL', 'BACKSTAGE_DELAYS_URL', 'BACKSTAGE_DEDUPE_URL', 'BACKSTAGE_HTTP_PORT',"
            + " 'POD_NAME']))";

    @Required
    @Size(min = 1, max = 1024)
    @JsonPropertyDescription(
            "Worker image: the Backstage runtime image plus your task modules. Its entrypoint runs the runtime main.")
    private String image;

    @Pattern("^(Always|IfNotPresent|Never)$")
    @JsonPropertyDescription("Always | IfNotPresent | Never.")
    private String imagePullPolicy;

    @Required
    @JsonPropertyDescription("The BackstageTopology (same namespace) this pool works on.")
    private TopologyReference topologyRef;

    @Size(max = 64)
    @ValidationRule(value = BrokerNameRules.EVERY_QUEUE, message = BrokerNameRules.QUEUE_MESSAGE)
    @ValidationRule(value = BrokerNameRules.EVERY_QUEUE_NOT_RESERVED, message = BrokerNameRules.NOT_RESERVED_MESSAGE)
    @JsonPropertyDescription("Topology queues to consume, in read-priority order.")
    private List<@Size(min = 1, max = BrokerNames.QUEUE_MAX_LENGTH) String> queues;

    @Size(max = 64)
    @JsonPropertyDescription("Topic subscriptions.")
    private List<TopicSubscriptionSpec> topics;

    @Min(1)
    @JsonPropertyDescription("Handlers running at once per replica (runtime default 50).")
    private Integer concurrency;

    @Min(1)
    @JsonPropertyDescription("Deliveries fetched ahead per replica (runtime default: concurrency).")
    private Integer prefetch;

    @Min(1)
    @JsonPropertyDescription("Retries of a failing job before it is dead-lettered: a job that always fails runs"
            + " maxRetries + 1 times in all (runtime default 5, so 6 runs). A job's own attempts or a task's"
            + " maxDeliveries set in code win.")
    private Integer maxRetries;

    @Min(1)
    @JsonPropertyDescription("Deprecated: the old name of maxRetries, with the same meaning (retries, so a job that"
            + " always fails runs maxDeliveries + 1 times). Use maxRetries; setting both is refused.")
    private Integer maxDeliveries;

    @JsonPropertyDescription("Default retry back-off (runtime default exponential 1s, max 5m).")
    private RetryBackoffSpec retryBackoff;

    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(value = Durations.POSITIVE_RULE, message = "hardTimeout must be greater than zero, e.g. 5m")
    @JsonPropertyDescription(
            "Hard timeout per handler run, e.g. 5m: the handler is interrupted and the delivery fails.")
    private String hardTimeout;

    @Default("30s")
    @Pattern(Durations.PATTERN)
    @Size(max = Durations.MAX_LENGTH)
    @ValidationRule(
            value = Durations.POSITIVE_RULE,
            message = "shutdownGracePeriod must be greater than zero, e.g. 30s")
    @JsonPropertyDescription(
            "On shutdown, how long in-flight handlers may finish. The pod's grace period is this plus a margin.")
    private String shutdownGracePeriod = "30s";

    @JsonPropertyDescription(
            "dead-letter (default) | leave-pending: what to do with a job no handler is registered for.")
    private UnknownTaskMode unknownTask;

    @Default("1")
    @Min(0)
    @SpecReplicas
    @JsonPropertyDescription("Replicas when autoscaling is off; the /scale subresource (kubectl scale bwp NAME"
            + " --replicas=N) sets it. With autoscaling on, the autoscaler decides and this count is used once"
            + " autoscaling is turned off.")
    private Integer replicas = 1;

    @JsonPropertyDescription("Backlog-driven autoscaling.")
    private AutoscalingSpec autoscaling;

    @JsonPropertyDescription("Worker container resources.")
    private ResourceRequirements resources;

    @Size(max = 128)
    @ValidationRule(
            value = RESERVED_ENV_RULE,
            message = "BACKSTAGE_CONFIG, BACKSTAGE_*_URL, BACKSTAGE_HTTP_PORT (the probes' port) and POD_NAME are set"
                    + " by the operator; remove them from spec.env")
    @JsonPropertyDescription("Extra worker env vars.")
    private List<EnvVar> env;

    @Size(max = 32)
    @JsonPropertyDescription("Extra worker env from ConfigMaps/Secrets.")
    private List<EnvFromSource> envFrom;

    @JsonPropertyDescription("Pod template settings: labels, annotations, scheduling, service account, pull secrets.")
    private PodOverrides pod;

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public String getImagePullPolicy() {
        return imagePullPolicy;
    }

    public void setImagePullPolicy(String imagePullPolicy) {
        this.imagePullPolicy = imagePullPolicy;
    }

    public TopologyReference getTopologyRef() {
        return topologyRef;
    }

    public void setTopologyRef(TopologyReference topologyRef) {
        this.topologyRef = topologyRef;
    }

    public List<String> getQueues() {
        return queues;
    }

    public void setQueues(List<String> queues) {
        this.queues = queues;
    }

    public List<TopicSubscriptionSpec> getTopics() {
        return topics;
    }

    public void setTopics(List<TopicSubscriptionSpec> topics) {
        this.topics = topics;
    }

    public Integer getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(Integer concurrency) {
        this.concurrency = concurrency;
    }

    public Integer getPrefetch() {
        return prefetch;
    }

    public void setPrefetch(Integer prefetch) {
        this.prefetch = prefetch;
    }

    public Integer getMaxRetries() {
        return maxRetries;
    }

    public void setMaxRetries(Integer maxRetries) {
        this.maxRetries = maxRetries;
    }

    /** The retries the pool's workers allow: maxRetries, else the deprecated maxDeliveries; null for the default. */
    public Integer effectiveMaxRetries() {
        return maxRetries != null ? maxRetries : maxDeliveries;
    }

    public Integer getMaxDeliveries() {
        return maxDeliveries;
    }

    public void setMaxDeliveries(Integer maxDeliveries) {
        this.maxDeliveries = maxDeliveries;
    }

    public RetryBackoffSpec getRetryBackoff() {
        return retryBackoff;
    }

    public void setRetryBackoff(RetryBackoffSpec retryBackoff) {
        this.retryBackoff = retryBackoff;
    }

    public String getHardTimeout() {
        return hardTimeout;
    }

    public void setHardTimeout(String hardTimeout) {
        this.hardTimeout = hardTimeout;
    }

    public String getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    public void setShutdownGracePeriod(String shutdownGracePeriod) {
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    public UnknownTaskMode getUnknownTask() {
        return unknownTask;
    }

    public void setUnknownTask(UnknownTaskMode unknownTask) {
        this.unknownTask = unknownTask;
    }

    public Integer getReplicas() {
        return replicas;
    }

    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }

    public AutoscalingSpec getAutoscaling() {
        return autoscaling;
    }

    public void setAutoscaling(AutoscalingSpec autoscaling) {
        this.autoscaling = autoscaling;
    }

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
    }

    public List<EnvVar> getEnv() {
        return env;
    }

    public void setEnv(List<EnvVar> env) {
        this.env = env;
    }

    public List<EnvFromSource> getEnvFrom() {
        return envFrom;
    }

    public void setEnvFrom(List<EnvFromSource> envFrom) {
        this.envFrom = envFrom;
    }

    public PodOverrides getPod() {
        return pod;
    }

    public void setPod(PodOverrides pod) {
        this.pod = pod;
    }
}
