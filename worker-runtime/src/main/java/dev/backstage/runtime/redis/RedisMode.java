package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ConfigurationException;
import java.util.Locale;

/**
 * How the provider reaches Redis (issue 23): one node, a Redis Cluster (sharded, 16,384 slots) or a primary found
 * through Sentinel. Chosen by the URL's scheme, or by the {@code mode} option when a managed product hands out a
 * plain {@code redis://} endpoint for its cluster.
 *
 * <ul>
 *   <li>{@code redis://} / {@code rediss://}: standalone (the seed SDKs' layout, byte for byte);
 *   <li>{@code redis+cluster://} / {@code rediss+cluster://}: cluster; the host part may list several seed nodes,
 *       {@code redis+cluster://h1:7000,h2:7001};
 *   <li>{@code redis-sentinel://} / {@code rediss-sentinel://}: Sentinel, lettuce's spelling,
 *       {@code redis-sentinel://h1:26379,h2:26380#mymaster}.
 * </ul>
 */
public enum RedisMode {
    STANDALONE,
    CLUSTER,
    SENTINEL;

    /** The mode a URL's scheme says; null when the scheme is none of Redis's. */
    static RedisMode ofScheme(String uri) {
        if (uri.startsWith("redis://") || uri.startsWith("rediss://")) {
            return STANDALONE;
        }
        if (uri.startsWith("redis+cluster://") || uri.startsWith("rediss+cluster://")) {
            return CLUSTER;
        }
        if (uri.startsWith("redis-sentinel://") || uri.startsWith("rediss-sentinel://")) {
            return SENTINEL;
        }
        return null;
    }

    /** The {@code mode} option's value: standalone, cluster or sentinel (any case). */
    static RedisMode parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(
                    "redis option mode is standalone, cluster or sentinel, got '" + value + "'");
        }
    }

    /**
     * The mode of {@code uri} with the explicit {@code option} (null when not set) checked against it; a bad
     * combination is a one-line error that says what to change.
     */
    static RedisMode resolve(String uri, RedisMode option) {
        RedisMode scheme = ofScheme(uri);
        if (scheme == null) {
            throw new ConfigurationException(
                    "a Redis URL starts with redis:// or rediss:// (one node), redis+cluster:// "
                            + "(Redis Cluster) or redis-sentinel:// (Sentinel), e.g. redis://127.0.0.1:6379");
        }
        RedisMode mode = option == null ? scheme : option;
        if (option != null && scheme != STANDALONE && option != scheme) {
            throw new ConfigurationException("redis option mode=" + option.label() + " contradicts the URL's scheme ("
                    + scheme.label() + "); drop the option or use a " + option.label() + " URL");
        }
        if (option == SENTINEL && scheme == STANDALONE) {
            throw new ConfigurationException("mode=sentinel needs the sentinels' addresses and the master name: use "
                    + "redis-sentinel://host:26379,host:26380#mymaster");
        }
        if (mode == CLUSTER && RedisEndpoints.database(uri) != 0) {
            throw new ConfigurationException(
                    "Redis Cluster has only database 0: drop /" + RedisEndpoints.database(uri) + " from the URL");
        }
        if (mode == SENTINEL && !uri.contains("#")) {
            throw new ConfigurationException(
                    "a Sentinel URL names the master after '#': redis-sentinel://host:26379#mymaster");
        }
        if (mode == STANDALONE && RedisEndpoints.hosts(uri).size() > 1) {
            throw new ConfigurationException("a redis:// URL names one node; for several cluster nodes use "
                    + "redis+cluster://h1:7000,h2:7001, for sentinels redis-sentinel://h1:26379,h2:26380#mymaster");
        }
        return mode;
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
