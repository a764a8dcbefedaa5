package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ConfigurationException;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The lettuce URIs of a Redis URL: one for a node or a Sentinel group (lettuce reads {@code redis-sentinel://} itself),
 * one per seed node for a cluster ({@code redis+cluster://user:pw@h1:7000,h2:7001/0?timeout=5s} becomes
 * {@code redis://user:pw@h1:7000/0?timeout=5s} and {@code redis://user:pw@h2:7001/0?timeout=5s}).
 */
final class RedisEndpoints {
    private RedisEndpoints() {}

    static List<RedisURI> of(String uri, RedisMode mode) {
        try {
            if (mode != RedisMode.CLUSTER) {
                return List.of(RedisURI.create(uri));
            }
            Parts parts = Parts.of(uri);
            String scheme = parts.scheme.startsWith("rediss") ? "rediss" : "redis";
            List<RedisURI> out = new ArrayList<>();
            for (String host : parts.hosts) {
                out.add(RedisURI.create(scheme + "://" + parts.userInfo + host + parts.rest));
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(
                    "the Redis URL cannot be read (" + e.getMessage()
                            + "); write it as redis://[user:password@]host:port[/db]",
                    e);
        }
    }

    /** The database number in the URL's path, 0 when there is none. */
    static int database(String uri) {
        String rest = Parts.of(uri).rest;
        String path = rest.startsWith("/") ? rest.substring(1).split("[?#]", 2)[0] : "";
        if (path.isEmpty()) {
            return 0;
        }
        try {
            return Integer.parseInt(path);
        } catch (NumberFormatException e) {
            throw new ConfigurationException("the Redis URL's path is a database number, got '/" + path + "'");
        }
    }

    static List<String> hosts(String uri) {
        return Parts.of(uri).hosts;
    }

    /** scheme, {@code user:pw@} (or empty), the comma-separated hosts and what follows them (path, query, fragment). */
    private record Parts(String scheme, String userInfo, List<String> hosts, String rest) {
        static Parts of(String uri) {
            int colon = uri.indexOf("://");
            String scheme = colon < 0 ? "" : uri.substring(0, colon);
            String tail = colon < 0 ? uri : uri.substring(colon + 3);
            int end = tail.length();
            for (char c : new char[] {'/', '?', '#'}) {
                int at = tail.indexOf(c, tail.lastIndexOf('@') + 1);
                if (at >= 0) {
                    end = Math.min(end, at);
                }
            }
            String authority = tail.substring(0, end);
            int at = authority.lastIndexOf('@');
            String userInfo = at < 0 ? "" : authority.substring(0, at + 1);
            String hostList = authority.substring(at + 1);
            return new Parts(scheme, userInfo, Arrays.asList(hostList.split(",")), tail.substring(end));
        }
    }
}
