package dev.backstage.runtime.redis;

/**
 * The key map of docs/wire-format.md, in one place, in one of two layouts:
 *
 * <ul>
 *   <li><b>shared</b> ({@code queueTags = false}): the seed SDKs' keys byte for byte ({@code {p}:{q}},
 *       {@code {p}:{q}:dead-letter}, {@code {p}:scheduled}, {@code {p}:error:{id}} …). Standalone and Sentinel use
 *       it, and so does a cluster whose prefix carries its own hash tag ({@code {backstage}}): every key then hashes
 *       to that tag's one slot, which is what a seed SDK needs to share a cluster with us;
 *   <li><b>per-queue tags</b> ({@code queueTags = true}, cluster mode with a plain prefix): each queue's keys share
 *       the hash tag {@code {p:q}} (the stream is {@code {p:q}}, its dead letters {@code {p:q}:dead-letter}, its
 *       delayed jobs {@code {p:q}:scheduled}, a failure record {@code {p:q}:error:{id}}), a topic's the tag
 *       {@code {p:topic:t}}; so every script and multi-key command stays in one slot, and queues spread over the
 *       shards. Single-key state keeps its plain name ({@code {p}:dedupe:{k}}, {@code {p}:workers:{g}},
 *       {@code {p}:broadcast}); {@code {p}:scheduled:queues} lists the queues that have delayed jobs.
 * </ul>
 *
 * The full table, for each mode, is in docs/wire-format.md ("Redis Cluster: the keys in each mode").
 */
public record RedisKeys(String prefix, boolean queueTags) {
    public RedisKeys(String prefix) {
        this(prefix, false);
    }

    /** The layout for {@code mode}: per-queue tags in a cluster unless the prefix has a hash tag of its own. */
    public static RedisKeys of(String prefix, RedisMode mode) {
        return new RedisKeys(prefix, mode == RedisMode.CLUSTER && !hasHashTag(prefix));
    }

    /** True when Redis Cluster would hash {@code key} by a part in braces (a non-empty {@code {…}}). */
    static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1;
    }

    public String stream(String queue) {
        return queueTags ? "{" + prefix + ":" + queue + "}" : prefix + ":" + queue;
    }

    public String deadLetter(String queue) {
        return stream(queue) + ":dead-letter";
    }

    /** The sorted set of every queue's delayed jobs (shared layout only; see {@link #scheduled(String)}). */
    public String scheduled() {
        return prefix + ":scheduled";
    }

    public String scheduledClaimed() {
        return prefix + ":scheduled:claimed";
    }

    /** The delayed jobs of {@code queue}: the one shared set, or with per-queue tags the queue's own. */
    public String scheduled(String queue) {
        return queueTags ? stream(queue) + ":scheduled" : scheduled();
    }

    public String scheduledClaimed(String queue) {
        return queueTags ? stream(queue) + ":scheduled:claimed" : scheduledClaimed();
    }

    /** With per-queue tags: the set of queues that have (or had) delayed jobs, for the promoter to visit. */
    public String delayedQueues() {
        return prefix + ":scheduled:queues";
    }

    public String dedupe(String key) {
        return prefix + ":dedupe:" + key;
    }

    /**
     * The claim of a cron tick whose job goes to {@code queue}, written together with the job by one script: the
     * dedupe key {@link #dedupe}, except with per-queue tags, where it carries the queue's tag
     * ({@code {p:q}:dedupe:cron:…}) so that it lives in the stream's slot.
     */
    public String tickClaim(String queue, String key) {
        return queueTags ? stream(queue) + ":dedupe:" + key : dedupe(key);
    }

    /** The failure record of entry {@code entryId} read from {@code stream}, in the stream's slot. */
    public String error(String stream, String entryId) {
        return queueTags ? stream + ":error:" + entryId : prefix + ":error:" + entryId;
    }

    /** Hash consumer name → last heartbeat (ms) of the Java workers in a group; seed workers do not write it. */
    public String workers(String group) {
        return prefix + ":workers:" + group;
    }

    public String topic(String topic) {
        return queueTags ? "{" + prefix + ":topic:" + topic + "}" : prefix + ":topic:" + topic;
    }

    /**
     * The dead letters of one subscription's group on a topic stream ({@code group} = {@code sub:{consumerId}} or
     * {@code grp:{name}}), named like a job queue's: the source key plus {@code :dead-letter}. An extension: the
     * seed SDKs have no topic dead letters.
     */
    public String topicDeadLetter(String topic, String group) {
        return topic(topic) + ":" + group + ":dead-letter";
    }

    /** The broadcast stream (docs/wire-format.md); the seed master listeners read it only under the prefix {@code backstage}. */
    public String broadcast() {
        return prefix + ":broadcast";
    }

    /** Queue name of a job stream key, or null when the key is not one of ours. */
    public String queueOf(String streamKey) {
        if (queueTags) {
            String head = "{" + prefix + ":";
            return streamKey.startsWith(head) && streamKey.endsWith("}")
                    ? streamKey.substring(head.length(), streamKey.length() - 1)
                    : null;
        }
        String head = prefix + ":";
        return streamKey.startsWith(head) ? streamKey.substring(head.length()) : null;
    }
}
