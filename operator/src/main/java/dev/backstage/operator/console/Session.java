package dev.backstage.operator.console;

import java.time.Instant;

/**
 * A signed-in user: the bearer token they gave (kept in the operator's memory only, never written out), the name
 * and groups TokenReview returned, the CSRF token their pages carry, and when the session ends.
 */
public record Session(
        String id, String token, String user, java.util.List<String> groups, String csrf, Instant expiresAt) {
    @Override
    public String toString() {
        return "Session[user=" + user + ", expiresAt=" + expiresAt + "]"; // never the token or the ids
    }
}
