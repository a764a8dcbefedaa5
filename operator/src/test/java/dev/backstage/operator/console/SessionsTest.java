package dev.backstage.operator.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SessionsTest {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-03T00:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    @Test
    void givenASignIn_whenTheCookieComesBack_thenTheSessionIsFoundUntilItExpires() {
        Sessions sessions = new Sessions(clock, Duration.ofHours(1));
        Session session = sessions.open("secret-token", "alice", List.of("dev"));
        assertEquals("alice", sessions.find(session.id()).orElseThrow().user());
        now.set(now.get().plus(Duration.ofHours(1)));
        assertTrue(sessions.find(session.id()).isEmpty());
        assertTrue(sessions.find(null).isEmpty());
    }

    @Test
    void givenTwoSessions_whenCompared_thenIdsAndCsrfTokensAreDistinctAndUnguessablyLong() {
        Sessions sessions = new Sessions(clock, Duration.ofHours(1));
        Session a = sessions.open("t1", "alice", List.of());
        Session b = sessions.open("t2", "bob", List.of());
        assertNotEquals(a.id(), b.id());
        assertNotEquals(a.csrf(), b.csrf());
        assertNotEquals(a.id(), a.csrf());
        assertEquals(43, a.csrf().length()); // 32 random bytes, base64url
    }

    @Test
    void givenASession_whenACsrfTokenIsPresented_thenOnlyItsOwnMatches() {
        Sessions sessions = new Sessions(clock, Duration.ofHours(1));
        Session a = sessions.open("t1", "alice", List.of());
        Session b = sessions.open("t2", "bob", List.of());
        assertTrue(Sessions.csrfMatches(a, a.csrf()));
        assertFalse(Sessions.csrfMatches(a, b.csrf()));
        assertFalse(Sessions.csrfMatches(a, null));
        assertFalse(Sessions.csrfMatches(a, ""));
    }

    @Test
    void givenASession_whenPrinted_thenNeitherTheTokenNorTheIdsShow() {
        Session session = new Sessions(clock, Duration.ofHours(1)).open("secret-token", "alice", List.of());
        String text = session.toString();
        assertFalse(text.contains("secret-token"));
        assertFalse(text.contains(session.id()));
        assertFalse(text.contains(session.csrf()));
    }

    @Test
    void givenMoreSessionsThanTheBound_whenOpened_thenTheOldestIsDropped() {
        Sessions sessions = new Sessions(clock, Duration.ofHours(1));
        Session first = sessions.open("t", "u0", List.of());
        for (int i = 1; i <= Sessions.MAX_SESSIONS; i++) {
            sessions.open("t", "u" + i, List.of());
        }
        assertTrue(sessions.find(first.id()).isEmpty());
    }

    @Test
    void givenASignInFormToken_whenChecked_thenOnlyThisProcesssUnchangedAndFreshTokensPass() {
        Sessions sessions = new Sessions(clock, Duration.ofHours(1));
        String token = sessions.formToken();
        assertTrue(sessions.validFormToken(token));
        assertNotEquals(token, sessions.formToken(), "each form its own");
        assertFalse(new Sessions(clock, Duration.ofHours(1)).validFormToken(token), "another process's key");
        String[] parts = token.split("\\.");
        assertFalse(
                sessions.validFormToken((Long.parseLong(parts[0]) + 600) + "." + parts[1] + "." + parts[2]),
                "a changed issue time breaks the MAC");
        assertFalse(sessions.validFormToken(parts[0] + "." + parts[1] + ".forged"));
        assertFalse(sessions.validFormToken("guess"));
        assertFalse(sessions.validFormToken(null));
        now.set(now.get().plus(Sessions.FORM_LIFETIME));
        assertFalse(sessions.validFormToken(token), "expired after " + Sessions.FORM_LIFETIME);
    }
}
