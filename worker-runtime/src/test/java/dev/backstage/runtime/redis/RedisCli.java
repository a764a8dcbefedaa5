package dev.backstage.runtime.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code redis-cli}, run as a child process: the reference the backlog probe's figures are checked
 * against (a second client, so a bug shared by the probe and lettuce cannot hide). Its raw (non-tty) output
 * prints one value per line; replies of key/value pairs are parsed into maps.
 */
final class RedisCli {
    private final List<String> target;

    RedisCli(String url) {
        this(List.of("-u", url));
    }

    private RedisCli(List<String> target) {
        this.target = target;
    }

    /**
     * The node that answers for {@code redis}'s mode: its one node; in a cluster the first seed node with {@code -c}
     * (redis-cli follows the MOVED redirects); with Sentinel the primary the first sentinel names now.
     */
    static RedisCli of(RedisTestSupport redis) {
        String url = RedisTestSupport.url(redis.mode());
        io.lettuce.core.RedisURI first = RedisEndpoints.of(url, redis.mode()).get(0);
        return switch (redis.mode()) {
            case STANDALONE -> new RedisCli(url);
            case CLUSTER -> new RedisCli(List.of("-c", "-h", first.getHost(), "-p", String.valueOf(first.getPort())));
            case SENTINEL -> {
                io.lettuce.core.RedisURI sentinel = first.getSentinels().get(0);
                int primary = RedisNodes.sentinelPrimary(sentinel.getPort(), first.getSentinelMasterId());
                yield new RedisCli(List.of("-h", sentinel.getHost(), "-p", String.valueOf(primary)));
            }
        };
    }

    /** The reply's lines. */
    List<String> run(String... command) {
        List<String> args = new ArrayList<>(List.of("redis-cli"));
        args.addAll(target);
        args.addAll(List.of(command));
        try {
            Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("redis-cli " + String.join(" ", command) + " did not finish");
            }
            if (process.exitValue() != 0 || out.startsWith("ERR") || out.startsWith("(error)")) {
                throw new AssertionError("redis-cli " + String.join(" ", command) + " failed: " + out);
            }
            System.out.println("redis-cli " + String.join(" ", command) + "\n" + out);
            return out.lines().toList();
        } catch (IOException e) {
            throw new AssertionError("could not run redis-cli (is it on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** {@code XINFO GROUPS}: one map per group, each starting at its {@code name} key. */
    List<Map<String, String>> xinfoGroups(String stream) {
        List<Map<String, String>> groups = new ArrayList<>();
        List<String> lines = run("XINFO", "GROUPS", stream);
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            if (lines.get(i).equals("name")) {
                groups.add(new LinkedHashMap<>());
            }
            groups.get(groups.size() - 1).put(lines.get(i), lines.get(i + 1));
        }
        return groups;
    }

    Map<String, String> xinfoGroup(String stream, String group) {
        return xinfoGroups(stream).stream()
                .filter(g -> group.equals(g.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("redis-cli lists no group " + group + " on " + stream));
    }

    /** {@code XINFO STREAM}'s top-level scalar fields (the nested first/last entries are skipped). */
    Map<String, String> xinfoStream(String stream) {
        Map<String, String> fields = new LinkedHashMap<>();
        List<String> lines = run("XINFO", "STREAM", stream);
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            String key = lines.get(i);
            fields.put(key, lines.get(i + 1));
            if (key.equals("first-entry") || key.equals("last-entry")) {
                break; // the entry's id and fields follow; nothing after them is needed
            }
        }
        return fields;
    }

    /** The pending count from the {@code XPENDING stream group} summary (its first line). */
    long xpendingCount(String stream, String group) {
        return Long.parseLong(run("XPENDING", stream, group).get(0));
    }

    long xlen(String key) {
        return Long.parseLong(run("XLEN", key).get(0));
    }
}
