package dev.backstage.operator.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
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

    /** How long a sign-in form (its token and cookie) stays usable. */
    static final Duration FORM_LIFETIME = Duration.ofMinutes(15);

    private final SecureRandom random = new SecureRandom();
    private final byte[] formKey = new byte[32];
    private final Clock clock;
    private final Duration lifetime;
    private final Map<String, Session> byId = new LinkedHashMap<>();

    public Sessions(Clock clock, Duration lifetime) {
        random.nextBytes(formKey);
        this.clock = clock;
        this.lifetime = lifetime;
    }

    public synchronized Session open(String token, String user, List<String> groups) {
        Session session = new Session(
                randomId(),
                token,
                user,
                List.copyOf(groups),
                randomId(),
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
        return expected != null
                && presented != null
                && !expected.isEmpty()
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A sign-in form token: {@code issuedAtSeconds.nonce.mac}, the MAC an HMAC-SHA256 under this process's own random
     * key. Nothing is kept per form; another site can neither read one nor make one (not even by planting the cookie).
     */
    String formToken() {
        String issued = clock.instant().getEpochSecond() + "." + randomId();
        return issued + "." + mac(issued);
    }

    /** Whether {@code token} is a form token this process made less than {@link #FORM_LIFETIME} ago. */
    boolean validFormToken(String token) {
        int last = token == null ? -1 : token.lastIndexOf('.');
        int first = token == null ? -1 : token.indexOf('.');
        if (first <= 0 || last <= first || !tokensMatch(mac(token.substring(0, last)), token.substring(last + 1))) {
            return false;
        }
        try {
            long age = clock.instant().getEpochSecond() - Long.parseLong(token.substring(0, first));
            return age >= 0 && age < FORM_LIFETIME.getSeconds();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private String mac(String text) {
        try {
            javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256");
            hmac.init(new javax.crypto.spec.SecretKeySpec(formKey, "HmacSHA256"));
            return ID.encodeToString(hmac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
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
