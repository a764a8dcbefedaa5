package dev.backstage.runtime.kafka;

import java.util.regex.Pattern;

/**
 * Topic and group names (docs/wire-format.md): jobs on {@code {p}.{q}}, dead letters on {@code {p}.{q}.dead-letter},
 * topics on {@code {p}.topic.{t}} read by groups {@code {p}.sub.{consumerId}} (fan-out) or
 * {@code {p}.grp.{group}} (shared), each such group's topic retries on {@code {p}.topic.{t}.{g}.retry} and its
 * dead-lettered topic messages on {@code {p}.topic.{t}.{g}.dead-letter} (where {@code g} is the group id without
 * the prefix: {@code sub.{consumerId}} or {@code grp.{group}}), broadcasts on {@code {p}.broadcast}, and the
 * dead-letter redrive progress in group {@code {p}.redrive}.
 */
public record KafkaNames(String prefix) {
    static final String DEAD_LETTER_SUFFIX = ".dead-letter";
    static final String RETRY_SUFFIX = ".retry";
    private static final Pattern NOT_IN_TOPIC_NAMES = Pattern.compile("[^a-zA-Z0-9._-]");

    public String jobTopic(String queue) {
        return prefix + "." + queue;
    }

    public String deadLetterTopic(String queue) {
        return jobTopic(queue) + DEAD_LETTER_SUFFIX;
    }

    public String topicTopic(String topic) {
        return prefix + ".topic." + topic;
    }

    public String fanOutGroup(String consumerId) {
        return prefix + ".sub." + consumerId;
    }

    public String sharedGroup(String group) {
        return prefix + ".grp." + group;
    }

    /** The retry topic private to {@code groupId} (one of this prefix's topic groups) on topic {@code topic}. */
    public String topicRetryTopic(String topic, String groupId) {
        return topicTopic(topic) + "." + groupLabel(groupId) + RETRY_SUFFIX;
    }

    /** Where {@code groupId}'s topic messages of {@code topic} go once past the retry policy. */
    public String topicDeadLetterTopic(String topic, String groupId) {
        return topicTopic(topic) + "." + groupLabel(groupId) + DEAD_LETTER_SUFFIX;
    }

    /**
     * Whether {@code kafkaTopic} is a subscription group's retry or dead-letter topic of {@code topic}. (A topic
     * named like {@code t.grp.x} has group topics that also read as those of {@code t}'s group {@code x.grp.…};
     * topic names that extend another's with {@code .grp.} or {@code .sub.} are best avoided.)
     */
    public boolean isGroupTopicOf(String kafkaTopic, String topic) {
        String head = topicTopic(topic) + ".";
        if (!kafkaTopic.startsWith(head)) {
            return false;
        }
        String rest = kafkaTopic.substring(head.length());
        String group = rest.endsWith(RETRY_SUFFIX)
                ? rest.substring(0, rest.length() - RETRY_SUFFIX.length())
                : rest.endsWith(DEAD_LETTER_SUFFIX)
                        ? rest.substring(0, rest.length() - DEAD_LETTER_SUFFIX.length())
                        : null;
        return group != null && (group.startsWith("sub.") || group.startsWith("grp.")) && group.length() > 4;
    }

    /**
     * The group id without the prefix; a character Kafka does not allow in a topic name (outside
     * {@code a-z A-Z 0-9 . _ -}) becomes {@code _}, and then the label ends with {@code -} and the hex hash of the
     * original, so two group names never share topics.
     */
    private String groupLabel(String groupId) {
        String label = groupId.startsWith(prefix + ".") ? groupId.substring(prefix.length() + 1) : groupId;
        String legal = NOT_IN_TOPIC_NAMES.matcher(label).replaceAll("_");
        return legal.equals(label) ? label : legal + "-" + Integer.toHexString(label.hashCode());
    }

    /** The broadcast topic, read by every worker without a consumer group (see {@code KafkaBroadcast}). */
    public String broadcastTopic() {
        return prefix + ".broadcast";
    }

    public String redriveGroup() {
        return prefix + ".redrive";
    }

    /** The queue name of a job topic, or null when {@code topic} is not one of this prefix's job topics. */
    public String queueOf(String topic) {
        String head = prefix + ".";
        if (!topic.startsWith(head)
                || topic.endsWith(DEAD_LETTER_SUFFIX)
                || topic.startsWith(prefix + ".topic.")
                || topic.equals(broadcastTopic())) {
            return null;
        }
        return topic.substring(head.length());
    }
}
