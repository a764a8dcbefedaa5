package dev.backstage.runtime.redis;

/** The key map of docs/wire-format.md, in one place. */
public record RedisKeys(String prefix) {
    public String stream(String queue) {
        return prefix + ":" + queue;
    }

    public String deadLetter(String queue) {
        return prefix + ":" + queue + ":dead-letter";
    }

    public String scheduled() {
        return prefix + ":scheduled";
    }

    public String scheduledClaimed() {
        return prefix + ":scheduled:claimed";
    }

    public String dedupe(String key) {
        return prefix + ":dedupe:" + key;
    }

    public String error(String entryId) {
        return prefix + ":error:" + entryId;
    }

    /** Hash consumer name → last heartbeat (ms) of the Java workers in a group; seed workers do not write it. */
    public String workers(String group) {
        return prefix + ":workers:" + group;
    }

    public String topic(String topic) {
        return prefix + ":topic:" + topic;
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
        String head = prefix + ":";
        return streamKey.startsWith(head) ? streamKey.substring(head.length()) : null;
    }
}
