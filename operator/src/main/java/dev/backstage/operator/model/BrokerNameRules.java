package dev.backstage.operator.model;

import dev.backstage.runtime.spi.BrokerNames;

/**
 * The runtime's {@link BrokerNames} rules as CEL rules of the CRD schemas, so that the API server itself refuses a
 * name the workers would refuse, with the same fix-it text, even on a cluster without the admission webhook. Built
 * from {@link BrokerNames}' patterns, lengths and texts (compile-time constants, so annotations can use them): one
 * source of truth. {@code BrokerNamesOnApiServerTest} checks on the real API server that both agree on a table of
 * good and bad names.
 *
 * <p>Each rule goes with {@code @Size(max = ...)} on the same field (on a list's elements for the list rules): the
 * API server needs a maximum length to bound a rule's cost, and refuses a longer value with its own "Too long"
 * message.
 */
public final class BrokerNameRules {
    /**
     * A key prefix as provider redis takes it (braces allowed: a field cannot see the provider);
     * {@link #BRACED_PREFIX} on the object refuses braces for the other providers.
     */
    public static final String PREFIX = "self.matches('" + BrokerNames.REDIS_PREFIX_PATTERN + "')";

    public static final String PREFIX_MESSAGE = "not a valid key prefix: " + BrokerNames.REDIS_PREFIX_RULE;
    /** On a topology's spec: a keyPrefix in braces only with provider redis. */
    public static final String BRACED_PREFIX =
            "!has(self.keyPrefix) || self.provider == 'redis' || !self.keyPrefix.startsWith('{')";

    public static final String BRACED_PREFIX_MESSAGE = "a keyPrefix in braces is " + BrokerNames.BRACED_PREFIX_RULE;

    public static final String QUEUE = "self.matches('" + BrokerNames.QUEUE_PATTERN + "')";
    public static final String QUEUE_MESSAGE = "not a valid queue or topic name: " + BrokerNames.QUEUE_RULE;

    /** The reserved queue and topic names; checked apart so that the message says why. */
    public static final String NOT_RESERVED = "!('" + BrokerNames.RESERVED_TEXT + "'.split(', ').exists(r, r == self))"
            + " && !self.endsWith('" + BrokerNames.RESERVED_SUFFIX_DEAD_LETTER + "')"
            + " && !self.endsWith('" + BrokerNames.RESERVED_SUFFIX_RETRY + "')"
            + " && !self.startsWith('" + BrokerNames.RESERVED_PREFIX_TOPIC + "')"
            + " && !self.startsWith('" + BrokerNames.RESERVED_PREFIX_BROADCAST + "')";

    public static final String NOT_RESERVED_MESSAGE = "this queue or topic name is " + BrokerNames.RESERVED_RULE;

    /** {@link #QUEUE} for every element of a list of queue names (a rule cannot sit on a list's elements). */
    public static final String EVERY_QUEUE = "self.all(q, q.matches('" + BrokerNames.QUEUE_PATTERN + "'))";
    /** {@link #NOT_RESERVED} for every element of a list of queue names. */
    public static final String EVERY_QUEUE_NOT_RESERVED = "self.all(q, !('" + BrokerNames.RESERVED_TEXT
            + "'.split(', ').exists(r, r == q))"
            + " && !q.endsWith('" + BrokerNames.RESERVED_SUFFIX_DEAD_LETTER + "')"
            + " && !q.endsWith('" + BrokerNames.RESERVED_SUFFIX_RETRY + "')"
            + " && !q.startsWith('" + BrokerNames.RESERVED_PREFIX_TOPIC + "')"
            + " && !q.startsWith('" + BrokerNames.RESERVED_PREFIX_BROADCAST + "'))";

    public static final String GROUP = "self.matches('" + BrokerNames.GROUP_PATTERN + "')";
    public static final String GROUP_MESSAGE = "not a valid consumer group: " + BrokerNames.GROUP_RULE;

    public static final String TASK = "self.matches('" + BrokerNames.TASK_PATTERN + "')";
    public static final String TASK_MESSAGE = "not a valid task name: " + BrokerNames.TASK_RULE;

    public static final String SCHEDULE = "self.matches('" + BrokerNames.SCHEDULE_PATTERN + "')";
    public static final String SCHEDULE_MESSAGE = "not a valid schedule name: " + BrokerNames.SCHEDULE_RULE;

    private BrokerNameRules() {}
}
