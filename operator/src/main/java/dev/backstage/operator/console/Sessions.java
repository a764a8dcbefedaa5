package dev.backstage.operator.console;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's sessions: a random id (the cookie) per sign-in, each with its own random CSRF token, ending after
 * {@code lifetime} or when {@link #MAX_SESSIONS} newer ones push it out (oldest first). Pure apart from the random
 * source and the clock.
 */
public final class Sessions {
    static final int MAX_SESSIONS = 1000;
    private static final Base64.Encoder ID = Base64.getUrlEncoder().withoutPadding();

    private final SecureRandom random = new SecureRandom();
    private final Clock clock;
    private final Duration lifetime;
    private final Map<String, Session> byId = new LinkedHashMap<>();

    public Sessions(Clock clock, Duration lifetime) {
        this.clock = clock;
        this.lifetime = lifetime;
    }

    public synchronized Session open(String token, String user, List<String> groups) {
        Session session = new Session(randomId(), token, user, List.copyOf(groups), randomId(),
                clock.instant().plus(lifetime));
        byId.put(session.id(), session);
        while (byId.size() > MAX_SESSIONS) {
            byId.remove(byId.keySet().iterator().next());
        }
        return session;
    }

    /** The live session of a cookie value; empty when unknown or expired (an expired one is dropped). */
    public synchronized Optional<Session> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Session session = byId.get(id);
        if (session == null) {
            return Optional.empty();
        }
        if (!clock.instant().isBefore(session.expiresAt())) {
            byId.remove(id);
            return Optional.empty();
        }
        return Optional.of(session);
    }

    public synchronized void close(String id) {
        byId.remove(id);
    }

    /** Whether {@code presented} is the session's CSRF token, compared in constant time. */
    public static boolean csrfMatches(Session session, String presented) {
        return tokensMatch(session.csrf(), presented);
    }

    /** Whether two tokens are the same, compared in constant time; false when either is missing. */
    static boolean tokensMatch(String expected, String presented) {
        return expected != null && presented != null && !expected.isEmpty() && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }

    /** A fresh random token for a sign-in form (not a session: nothing is kept). */
    String formToken() {
        return randomId();
    }

    private String randomId() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return ID.encodeToString(bytes);
    }

    Instant now() {
        return clock.instant();
    }
}
