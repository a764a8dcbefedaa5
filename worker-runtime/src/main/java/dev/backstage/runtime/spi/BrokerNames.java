package dev.backstage.runtime.spi;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names users give to broker objects, checked by one set of rules for the runtime's configuration, the CLI and
 * the operator's admission: what every provider accepts (Kafka topic names allow only {@code [A-Za-z0-9._-]} and 249
 * characters; RabbitMQ queue names 255 bytes) and what is safe to show in a terminal, a log line or an HTML page
 * (no spaces, control characters, quotes, shell or markup characters, no bidirectional overrides).
 *
 * <ul>
 *   <li>key prefix: 1-40 of {@code A-Z a-z 0-9 _ -}, starting with a letter or digit. No {@code .} or {@code :}: they
 *       separate the prefix from the rest of the name, so {@code hy:a} would reach into prefix {@code hy}'s queue
 *       {@code a}. For provider {@code redis} also such a name of 1-38 characters in braces, {@code {orders}}: a
 *       Redis Cluster hash tag, which puts all of the prefix's keys in one slot and is how the seed SDKs share a
 *       cluster with us (docs/providers/redis-cluster.md). Other providers refuse braces: Kafka topic names cannot
 *       hold them and RabbitMQ names should not;</li>
 *   <li>queue and topic: 1-100 of {@code A-Z a-z 0-9 _ . -}, starting with a letter or digit; not one of the
 *       names the providers use themselves ({@value #RESERVED_TEXT}), not ending in {@code .dead-letter} or
 *       {@code .retry} and not starting with {@code topic.} or {@code broadcast.};</li>
 *   <li>consumer group: 1-100 of {@code A-Z a-z 0-9 _ . -}, starting with a letter or digit;</li>
 *   <li>task: 1-200 of {@code A-Z a-z 0-9 _ . - : /}, starting with a letter or digit;</li>
 *   <li>schedule: 1-100 of {@code A-Z a-z 0-9 _ . -}, starting with a letter or digit (part of each tick's dedupe
 *       key).</li>
 * </ul>
 *
 * <p>The patterns, lengths and fix-it texts are public constants so that the operator's CRD schemas carry the same
 * rules (as CEL rules with these texts as their messages): one source of truth for admission and the API server.
 */
public final class BrokerNames {
    public static final String PREFIX_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$";
    /**
     * A Redis key prefix: {@link #PREFIX_PATTERN}, or such a name in braces (a hash tag). The braces are written as
     * classes ({@code [{]}) so that the pattern reads the same in Java, in RE2 and inside a CEL string.
     */
    public static final String REDIS_PREFIX_PATTERN =
            "^([A-Za-z0-9][A-Za-z0-9_-]{0,39}|[{][A-Za-z0-9][A-Za-z0-9_-]{0,37}[}])$";

    public static final String QUEUE_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$";
    public static final String GROUP_PATTERN = QUEUE_PATTERN;
    public static final String TASK_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$";
    public static final String SCHEDULE_PATTERN = QUEUE_PATTERN;
    public static final int PREFIX_MAX_LENGTH = 40;
    public static final int QUEUE_MAX_LENGTH = 100;
    public static final int GROUP_MAX_LENGTH = QUEUE_MAX_LENGTH;
    public static final int SCHEDULE_MAX_LENGTH = QUEUE_MAX_LENGTH;
    public static final int TASK_MAX_LENGTH = 200;
    /** The queue and topic names the providers use themselves, separated by {@code ", "}. */
    public static final String RESERVED_TEXT = "broadcast, scheduled, topics, delayed, redrive, dead-letter";
    /** A queue or topic name may not end with these ... */
    public static final String RESERVED_SUFFIX_DEAD_LETTER = ".dead-letter";

    public static final String RESERVED_SUFFIX_RETRY = ".retry";
    /** ... nor start with these. */
    public static final String RESERVED_PREFIX_TOPIC = "topic.";

    public static final String RESERVED_PREFIX_BROADCAST = "broadcast.";
    /** What to change, after "is not a valid key prefix: ". */
    public static final String PREFIX_RULE =
            "use 1-40 letters, digits, '_' or '-', starting with a letter or digit" + " (no '.' or ':'), e.g. orders";
    /** What to change, after "is not a valid key prefix: ", for provider redis. */
    public static final String REDIS_PREFIX_RULE = "use 1-40 letters, digits, '_' or '-', starting with a letter or"
            + " digit (no '.' or ':'), e.g. orders, or such a name in braces (a Redis Cluster hash tag), e.g. {orders}";
    /** Why a prefix in braces is refused for any provider but redis, after "is ". */
    public static final String BRACED_PREFIX_RULE = "a Redis Cluster hash tag, for provider redis only: Kafka topic"
            + " names cannot hold braces and RabbitMQ names should not; drop the braces";
    /** What to change, after "is not a valid name: " (queues and topics). */
    public static final String QUEUE_RULE =
            "use 1-100 letters, digits, '_', '.' or '-', starting with a letter or" + " digit, e.g. emails";
    /** What to change, after "is not a valid consumer group: ". */
    public static final String GROUP_RULE =
            "use 1-100 letters, digits, '_', '.' or '-', starting with a letter or" + " digit, e.g. backstage-workers";
    /** What to change, after "is not a valid task name: ". */
    public static final String TASK_RULE = "use 1-200 letters, digits, '_', '.', '-', ':' or '/', starting with a"
            + " letter or digit, e.g. sendEmail";
    /** What to change, after "is not a valid schedule name: ". */
    public static final String SCHEDULE_RULE =
            "use 1-100 letters, digits, '_', '.' or '-', starting with a letter or" + " digit, e.g. nightly-report";
    /** Why a reserved queue or topic name is refused, after "is ". */
    public static final String RESERVED_RULE = "reserved for the provider's own objects (" + RESERVED_TEXT
            + ", names ending in " + RESERVED_SUFFIX_DEAD_LETTER + " or " + RESERVED_SUFFIX_RETRY + ", starting with "
            + RESERVED_PREFIX_TOPIC + " or " + RESERVED_PREFIX_BROADCAST + "); choose another";

    private static final Set<String> RESERVED = Set.of(RESERVED_TEXT.split(", "));
    private static final Pattern PREFIX = Pattern.compile(PREFIX_PATTERN);
    private static final Pattern REDIS_PREFIX = Pattern.compile(REDIS_PREFIX_PATTERN);
    private static final Pattern QUEUE = Pattern.compile(QUEUE_PATTERN);
    private static final Pattern TASK = Pattern.compile(TASK_PATTERN);
    private static final int SHOWN = 40;

    private BrokerNames() {}

    /**
     * Why {@code value} is no key prefix for every provider (no braces), or empty when it is one. {@code field}
     * names it in the message.
     */
    public static Optional<String> prefixProblem(String field, String value) {
        return prefixProblem(field, value, null);
    }

    /**
     * Why {@code value} is no key prefix of {@code provider} ({@code redis}, {@code rabbitmq}, {@code kafka}), or
     * empty: provider {@code redis} also takes a prefix in braces ({@code {orders}}), the others do not.
     */
    public static Optional<String> prefixProblem(String field, String value, String provider) {
        boolean redis = "redis".equals(provider);
        if (value != null && (redis ? REDIS_PREFIX : PREFIX).matcher(value).matches()) {
            return Optional.empty();
        }
        if (value != null && REDIS_PREFIX.matcher(value).matches()) {
            return Optional.of(field + " " + shown(value) + " is " + BRACED_PREFIX_RULE + ": "
                    + value.substring(1, value.length() - 1));
        }
        return Optional.of(field + " " + shown(value) + " is not a valid key prefix: "
                + (redis ? REDIS_PREFIX_RULE : PREFIX_RULE));
    }

    /** Why {@code value} is no queue name (or topic name: the same rules), or empty. */
    public static Optional<String> queueProblem(String field, String value) {
        if (value == null || !QUEUE.matcher(value).matches()) {
            return Optional.of(field + " " + shown(value) + " is not a valid name: " + QUEUE_RULE);
        }
        if (RESERVED.contains(value)
                || value.endsWith(RESERVED_SUFFIX_DEAD_LETTER)
                || value.endsWith(RESERVED_SUFFIX_RETRY)
                || value.startsWith(RESERVED_PREFIX_TOPIC)
                || value.startsWith(RESERVED_PREFIX_BROADCAST)) {
            return Optional.of(field + " '" + value + "' is " + RESERVED_RULE);
        }
        return Optional.empty();
    }

    /** Why {@code value} is no consumer group, or empty. */
    public static Optional<String> groupProblem(String field, String value) {
        if (value != null && QUEUE.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of(field + " " + shown(value) + " is not a valid consumer group: " + GROUP_RULE);
    }

    /** Why {@code value} is no task name, or empty. */
    public static Optional<String> taskProblem(String field, String value) {
        if (value != null && TASK.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of(field + " " + shown(value) + " is not a valid task name: " + TASK_RULE);
    }

    /** Why {@code value} is no schedule name, or empty. */
    public static Optional<String> scheduleProblem(String field, String value) {
        if (value != null && QUEUE.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of(field + " " + shown(value) + " is not a valid schedule name: " + SCHEDULE_RULE);
    }

    public static String requirePrefix(String field, String value) {
        prefixProblem(field, value).ifPresent(BrokerNames::fail);
        return value;
    }

    /** {@link #requirePrefix(String, String)} with {@code provider}'s rule: braces only for redis. */
    public static String requirePrefix(String field, String value, String provider) {
        prefixProblem(field, value, provider).ifPresent(BrokerNames::fail);
        return value;
    }

    public static String requireQueue(String field, String value) {
        queueProblem(field, value).ifPresent(BrokerNames::fail);
        return value;
    }

    public static String requireGroup(String field, String value) {
        groupProblem(field, value).ifPresent(BrokerNames::fail);
        return value;
    }

    public static String requireTask(String field, String value) {
        taskProblem(field, value).ifPresent(BrokerNames::fail);
        return value;
    }

    private static void fail(String message) {
        throw new ConfigurationException(message);
    }

    /**
     * The value quoted for a message: printable ASCII only (anything else, a newline, an escape, U+202E, as
     * {@code \\uXXXX}), at most 40 characters and the length.
     */
    static String shown(String value) {
        return shown(value, SHOWN);
    }

    /** {@link #shown(String)} with at most {@code limit} characters: a value quoted safely in any message. */
    public static String shown(String value, int limit) {
        if (value == null) {
            return "(missing)";
        }
        StringBuilder out = new StringBuilder("'");
        int end = Math.min(value.length(), limit);
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                out.append(c);
            } else {
                out.append(String.format("\\u%04X", (int) c));
            }
        }
        out.append('\'');
        if (value.length() > limit) {
            out.append("… (").append(value.length()).append(" characters)");
        }
        return out.toString();
    }
}
