package dev.backstage.operator.console;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * SubjectAccessReview answers per session, kept for {@code ttl} (a page of 1,000 pools costs one review per
 * namespace, not per pool per refresh). A namespace-wide {@code get} covers every object in it; without it each object
 * is reviewed by name (RBAC with resourceNames). Bounded: the oldest answers go first.
 */
final class Permissions {
    private static final int MAX = 50_000;

    private final ConsoleAccess access;
    private final Clock clock;
    private final Duration ttl;
    private final Map<String, Answer> answers = new LinkedHashMap<>();

    private record Answer(boolean allowed, long expiresAtMs) {}

    Permissions(ConsoleAccess access, Clock clock, Duration ttl) {
        this.access = access;
        this.clock = clock;
        this.ttl = ttl;
    }

    boolean may(Session session, Verb verb, String resource, String namespace, String name) {
        if (name != null && ask(session, verb, resource, namespace, null)) {
            return true;
        }
        return ask(session, verb, resource, namespace, name);
    }

    /** Whether the user may list the Events of {@code namespace} (core group). */
    boolean mayListEvents(Session session, String namespace) {
        return ask(session, Verb.LIST, "", "events", namespace, null);
    }

    private boolean ask(Session session, Verb verb, String resource, String namespace, String name) {
        return ask(session, verb, ConsoleAccess.GROUP, resource, namespace, name);
    }

    private boolean ask(Session session, Verb verb, String group, String resource, String namespace, String name) {
        String key = session.id() + '|' + verb + '|' + group + '|' + resource + '|' + namespace + '|' + name;
        long now = clock.millis();
        synchronized (answers) {
            Answer cached = answers.get(key);
            if (cached != null && cached.expiresAtMs() > now) {
                return cached.allowed();
            }
        }
        boolean allowed = access.allowed(session, verb, group, resource, namespace, name);
        synchronized (answers) {
            answers.put(key, new Answer(allowed, now + ttl.toMillis()));
            while (answers.size() > MAX) {
                answers.remove(answers.keySet().iterator().next());
            }
        }
        return allowed;
    }
}
