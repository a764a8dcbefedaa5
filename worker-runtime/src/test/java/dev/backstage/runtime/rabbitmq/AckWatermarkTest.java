package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The coalescing of acks as a table: a sequence of settlements (a = acked, f = framed: its own frame already
 * written), where the flusher writes what {@code next()} hands out after every step that makes the caller the
 * flusher, and the frames written in order. A model of the broker checks every multiple ack against what it
 * holds: the tag it names is still unacked, and everything it covers is settled.
 */
class AckWatermarkTest {

    static Stream<Arguments> table() {
        return Stream.of(
                // settlements, spillAt, frames written (m:N = basic.ack(N, multiple), s:N = basic.ack(N, single))
                Arguments.of("a1 a2 a3", 8, "m:1 m:2 m:3"),
                Arguments.of("a2 a3 a1", 8, "m:3"),
                Arguments.of("a3 a1 a2", 8, "m:1 m:3"),
                // a requeued tag (own frame) is settled but not owed: the multiple ack names the owed tag below it
                Arguments.of("a2 f3 a1", 8, "m:2"),
                Arguments.of("f1 a2", 8, "m:2"),
                Arguments.of("f1 f2", 8, ""),
                // nothing passes an unsettled tag: 2 is still being handled
                Arguments.of("a1 a3 a4", 8, "m:1"),
                // above a gap, spillAt owed acks go out one by one; the prefix still moves on later
                Arguments.of("a2 a3 a4", 3, "s:2 s:3 s:4"),
                Arguments.of("a2 a3 a4 a1 a5", 3, "s:2 s:3 s:4 m:1 m:5"),
                Arguments.of("a2 f3 a4 a5 a1", 3, "s:2 s:4 s:5 m:1"));
    }

    @ParameterizedTest(name = "{0} (spillAt {1}) -> {2}")
    @MethodSource("table")
    void givenSettlementsInThisOrder_thenTheseFramesAreWritten(String steps, int spillAt, String expected) {
        AckWatermark watermark = new AckWatermark(0, spillAt);
        Broker broker = new Broker();
        List<String> frames = new ArrayList<>();
        for (String step : steps.split(" ")) {
            long tag = Long.parseLong(step.substring(1));
            broker.deliver(tag);
            boolean flush;
            if (step.charAt(0) == 'f') {
                broker.reject(tag); // the reject is written before the tag counts as settled
                flush = watermark.framed(tag);
            } else {
                broker.settled.add(tag);
                flush = watermark.acked(tag);
            }
            if (flush) {
                for (AckWatermark.Flush f = watermark.next(); f != null; f = watermark.next()) {
                    write(f, broker, frames);
                }
            }
        }
        assertEquals(expected, String.join(" ", frames));
    }

    @Test
    void givenOwedAcksAboveAGap_whenDrained_thenAllGoOutAndTheBrokerHoldsOnlyTheGap() throws Exception {
        AckWatermark watermark = new AckWatermark(0, 100);
        Broker broker = new Broker();
        for (long tag = 1; tag <= 6; tag++) {
            broker.deliver(tag);
        }
        List<String> frames = new ArrayList<>();
        for (long tag : new long[] {1, 3, 5, 6}) {
            broker.settled.add(tag);
            if (watermark.acked(tag)) {
                for (AckWatermark.Flush f = watermark.next(); f != null; f = watermark.next()) {
                    write(f, broker, frames);
                }
            }
        }
        write(watermark.drain(), broker, frames);
        assertEquals("m:1 s:3 s:5 s:6", String.join(" ", frames));
        assertEquals(new TreeSet<>(List.of(2L, 4L)), broker.unacked, "only the unsettled deliveries stay unacked");
    }

    @Test
    void givenAPrefixThatDoesNotMoveBetweenTwoTicks_thenTheOwedAcksAboveTheGapGoOutOneByOne() {
        AckWatermark watermark = new AckWatermark(0, 100);
        assertTrue(watermark.acked(1));
        assertEquals(new AckWatermark.Flush(new long[0], 1), watermark.next());
        assertNull(watermark.next());
        assertFalse(watermark.acked(3), "held behind 2");
        assertNull(watermark.stuck(), "the prefix moved since the last tick (0 -> 1)");
        assertEquals(new AckWatermark.Flush(new long[] {3}, 0), watermark.stuck(), "no movement since: spill");
        assertNull(watermark.next(), "the stuck flush's role is released by next()");
        assertTrue(watermark.acked(2), "2 closes the gap; 3 was already written on its own");
        assertEquals(new AckWatermark.Flush(new long[0], 2), watermark.next());
    }

    @Test
    void givenAFlushRunning_thenOthersOnlyRecordAndTheFlusherTakesTheirAcksBeforeItStops() {
        AckWatermark watermark = new AckWatermark(0, 100);
        assertTrue(watermark.acked(1), "no flush running: this caller flushes");
        AckWatermark.Flush first = watermark.next();
        assertEquals(1, first.multipleUpTo());
        assertFalse(watermark.acked(2), "a flush is running: only recorded");
        assertFalse(watermark.acked(3));
        assertEquals(3, watermark.next().multipleUpTo(), "the running flusher takes 2 and 3 in one frame");
        assertNull(watermark.next());
        assertTrue(watermark.acked(4), "the role was released: the next ack flushes again");
    }

    @Test
    void givenDeliveriesStillBeingHandled_thenAcksWaitForABatchOfThree_andTheLastOneSettledWritesTheRest() {
        AckWatermark watermark = new AckWatermark(0, 100, 3);
        for (long tag = 1; tag <= 5; tag++) {
            watermark.delivered(tag);
        }
        assertFalse(watermark.acked(1), "4 deliveries still being handled, 1 owed of a batch of 3");
        assertFalse(watermark.acked(2));
        assertTrue(watermark.acked(3), "3 owed: a batch");
        assertEquals(new AckWatermark.Flush(new long[0], 3), watermark.next());
        assertNull(watermark.next());
        assertFalse(watermark.acked(4));
        assertTrue(watermark.acked(5), "every delivery settled: written at once, not held for a batch");
        assertEquals(new AckWatermark.Flush(new long[0], 5), watermark.next());
    }

    @Test
    void givenAcksWaitingForABatchAndNoFlushSinceTheLastTick_thenTheTickWritesThem() {
        AckWatermark watermark = new AckWatermark(0, 100, 3);
        watermark.delivered(2);
        assertFalse(watermark.acked(1), "2 is still being handled");
        assertEquals(new AckWatermark.Flush(new long[0], 1), watermark.stuck());
        assertNull(watermark.next());
        assertNull(watermark.stuck(), "nothing owed");
    }

    @Test
    void givenARecoveredChannelNumberingOnFrom100_thenOlderTagsAreBeforeTheEpochAndTheFirstNewOneFlushes() {
        AckWatermark watermark = new AckWatermark(100, 8);
        assertTrue(watermark.before(100));
        assertFalse(watermark.before(101));
        assertTrue(watermark.acked(101));
        assertEquals(101, watermark.next().multipleUpTo());
    }

    @Test
    void givenATagSettledTwice_thenItIsRefused() {
        AckWatermark watermark = new AckWatermark(0, 8);
        watermark.acked(2);
        assertThrows(IllegalStateException.class, () -> watermark.acked(2));
        watermark.framed(1);
        assertThrows(IllegalStateException.class, () -> watermark.framed(1));
    }

    @Test
    void givenManyThousandTagsSettledOutOfOrder_thenTheWatermarkFollowsAndEveryAckIsWrittenOnce() {
        AckWatermark watermark = new AckWatermark(0, 64);
        Broker broker = new Broker();
        List<String> frames = new ArrayList<>();
        int n = 20_000;
        for (long tag = 1; tag <= n; tag++) {
            broker.deliver(tag);
        }
        // Groups of four in reverse, and every 1,000th tag settled 100 settlements late (a slow job): spills
        // above the gap and compaction of the window happen along the way.
        List<Long> order = new ArrayList<>();
        for (long tag = 1; tag <= n; tag += 4) {
            for (long t = tag + 3; t >= tag; t--) {
                order.add(t);
            }
        }
        for (long slow = 1000; slow <= n; slow += 1000) {
            int at = order.indexOf(slow);
            order.remove(at);
            order.add(Math.min(order.size(), at + 100), slow);
        }
        for (long tag : order) {
            broker.settled.add(tag);
            if (watermark.acked(tag)) {
                for (AckWatermark.Flush f = watermark.next(); f != null; f = watermark.next()) {
                    write(f, broker, frames);
                }
            }
        }
        assertTrue(broker.unacked.isEmpty(), "left unacked: " + broker.unacked.size());
        assertTrue(frames.size() < n / 2, "coalesced: " + frames.size() + " frames for " + n + " acks");
    }

    private static void write(AckWatermark.Flush f, Broker broker, List<String> frames) {
        if (f == null) {
            return;
        }
        for (long single : f.singles()) {
            broker.ack(single, false);
            frames.add("s:" + single);
        }
        if (f.multipleUpTo() > 0) {
            broker.ack(f.multipleUpTo(), true);
            frames.add("m:" + f.multipleUpTo());
        }
    }

    /** What the broker holds for one channel, and the checks it makes on every frame. */
    private static final class Broker {
        final TreeSet<Long> unacked = new TreeSet<>();
        final TreeSet<Long> settled = new TreeSet<>();
        long delivered;

        /** Delivers every tag up to {@code tag} (tags on a channel run 1, 2, 3, ...). */
        void deliver(long tag) {
            for (; delivered < tag; delivered++) {
                unacked.add(delivered + 1);
            }
        }

        void reject(long tag) {
            assertTrue(unacked.remove(tag), "reject of a tag the broker does not hold: " + tag);
            settled.add(tag);
        }

        void ack(long tag, boolean multiple) {
            assertTrue(unacked.contains(tag), "ack names tag " + tag + ", which the broker no longer holds");
            List<Long> covered = multiple ? new ArrayList<>(unacked.headSet(tag, true)) : List.of(tag);
            for (long t : covered) {
                assertTrue(settled.contains(t), "ack of " + tag + " (multiple " + multiple + ") covers unsettled " + t);
                unacked.remove(t);
            }
        }
    }
}
