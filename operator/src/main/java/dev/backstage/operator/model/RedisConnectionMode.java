package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a Redis topology reaches Redis (issue 23); the runtime's {@code mode} provider option. */
public enum RedisConnectionMode {
    /** One node (or a managed endpoint that fails over behind one address). */
    @JsonProperty("standalone")
    STANDALONE("standalone"),
    /** Redis Cluster / cluster-mode managed Redis: sharded, per-queue hash tags. */
    @JsonProperty("cluster")
    CLUSTER("cluster"),
    /** A primary found through Sentinel (the URL is redis-sentinel://…#master). */
    @JsonProperty("sentinel")
    SENTINEL("sentinel");

    private final String wire;

    RedisConnectionMode(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
