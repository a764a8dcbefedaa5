package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fallback ladder's arithmetic (no broker). */
class RabbitMqDelayLadderTest {
    private final DelayLadder ladder = DelayLadder.standard();

    @Test
    void givenADelay_thenItWaitsInTheLevelsOfItsBinaryDigitsRoundedUpToTheResolution() {
        for (long ms : new long[] {1, 99, 100, 101, 700, 2_300, 4_000, 59_999, 3_600_000, 86_400_000L * 30}) {
            DelayLadder.Route route = ladder.route(Duration.ofMillis(ms));
            long waited = route.levels().stream().mapToLong(ladder::ttlMs).sum();
            assertTrue(waited >= ms, ms + " ms must never be early, waited " + waited);
            assertTrue(waited < ms + 100, ms + " ms must be at most one resolution late, waited " + waited);
            assertEquals(route.levels().get(0), route.entryLevel(), "enters at its longest level");
        }
    }

    @Test
    void givenADelay_thenItsLevelsAreVisitedLongestFirst_andTheKeyHasOneWordPerLevel() {
        DelayLadder.Route route = ladder.route(Duration.ofMillis(2_300)); // 23 units = 10111b
        assertEquals(List.of(4, 2, 1, 0), route.levels());
        String[] words = route.routingKey().split("\\.");
        assertEquals(ladder.levels(), words.length);
        assertEquals("1", words[ladder.levels() - 1 - 4]);
        assertEquals("0", words[ladder.levels() - 1 - 3]);
    }

    @Test
    void givenEachLevel_thenItsBindingMatchesOnlyItsOwnBit() {
        DelayLadder.Route route = ladder.route(Duration.ofMillis(4_000)); // 40 units = 101000b
        for (int level = 0; level < ladder.levels(); level++) {
            boolean set = route.levels().contains(level);
            assertTrue(matches(ladder.bindingPattern(level, set), route.routingKey()), "level " + level);
            assertTrue(!matches(ladder.bindingPattern(level, !set), route.routingKey()), "level " + level);
        }
    }

    /** AMQP topic matching: '*' is exactly one word, '#' zero or more words. */
    private static boolean matches(String pattern, String key) {
        return matches(pattern.split("\\."), 0, key.split("\\."), 0);
    }

    private static boolean matches(String[] pattern, int p, String[] key, int k) {
        if (p == pattern.length) {
            return k == key.length;
        }
        if (pattern[p].equals("#")) {
            for (int skip = k; skip <= key.length; skip++) {
                if (matches(pattern, p + 1, key, skip)) {
                    return true;
                }
            }
            return false;
        }
        return k < key.length
                && (pattern[p].equals("*") || pattern[p].equals(key[k]))
                && matches(pattern, p + 1, key, k + 1);
    }

    @Test
    void givenAJobDueAlready_thenItHasNoRoute() {
        assertNull(ladder.route(Duration.ZERO));
        assertNull(ladder.route(Duration.ofMillis(-5)));
    }

    @Test
    void givenADelayBeyondTheLadder_thenItIsRefusedWithAHint() {
        var error = assertThrows(
                IllegalArgumentException.class,
                () -> ladder.route(ladder.maxDelay().plusMillis(1)));
        assertTrue(error.getMessage().contains("delayedExchange=plugin|supplied"));
        assertTrue(ladder.maxDelay().compareTo(Duration.ofDays(30)) > 0);
        assertTrue(ladder.ttlMs(ladder.levels() - 1) < Integer.MAX_VALUE, "every TTL fits 31 bits");
    }
}
