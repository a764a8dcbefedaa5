package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.kafka.ContiguousOffsetTracker.Tracked;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ContiguousOffsetTrackerTest {

    @Test
    void givenNothingTracked_thenThereIsNothingToCommit() {
        assertEquals(OptionalLong.empty(), new ContiguousOffsetTracker<String>().committableOffset());
    }

    @Test
    void givenTrackedButUnsettled_thenTheCommitStaysAtTheFirstFetchedOffset() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
        tracker.track(5);
        tracker.track(6);
        assertEquals(OptionalLong.of(5), tracker.committableOffset());
        assertEquals(2, tracker.unsettled());
    }

    @Test
    void givenALaterOffsetSettlesFirst_thenTheCommitDoesNotPassTheEarlierUnsettledOne() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
        for (long o = 0; o < 5; o++) {
            tracker.track(o);
        }
        tracker.settle(3);
        tracker.settle(4);
        assertEquals(OptionalLong.of(0), tracker.committableOffset());
        tracker.settle(0);
        assertEquals(OptionalLong.of(1), tracker.committableOffset());
        tracker.settle(2);
        assertEquals(OptionalLong.of(1), tracker.committableOffset());
        assertArrayEquals(new long[] {2, 3, 4}, tracker.settledBeyondCommittable());
        tracker.settle(1);
        assertEquals(OptionalLong.of(5), tracker.committableOffset());
        assertEquals(0, tracker.size());
        assertArrayEquals(new long[0], tracker.settledBeyondCommittable());
    }

    @Test
    void givenGapsBetweenOffsets_thenOnlyTrackedOffsetsCount() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
        tracker.track(10);
        tracker.track(13); // 11 and 12 are, e.g., compacted away
        tracker.track(20);
        tracker.settle(13);
        assertEquals(OptionalLong.of(10), tracker.committableOffset());
        tracker.settle(10);
        assertEquals(OptionalLong.of(20), tracker.committableOffset());
        tracker.settle(20);
        assertEquals(OptionalLong.of(21), tracker.committableOffset());
    }

    @Test
    void givenOffsetsOutOfOrderOrSettledTwice_thenItFailsLoudly() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
        tracker.track(3);
        assertThrows(IllegalArgumentException.class, () -> tracker.track(3));
        assertThrows(IllegalArgumentException.class, () -> tracker.track(2));
        assertThrows(IllegalStateException.class, () -> tracker.settle(4));
        tracker.track(4);
        tracker.settle(4);
        assertThrows(IllegalStateException.class, () -> tracker.settle(4));
        tracker.settle(3);
        assertThrows(IllegalStateException.class, () -> tracker.settle(3));
    }

    @Test
    void givenOffsetsSettledByAPreviousOwner_thenTheyAreReportedAlreadySettledAndCountAsSettled() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>(new long[] {12, 11});
        assertEquals(Tracked.NEW, tracker.track(10));
        assertEquals(Tracked.ALREADY_SETTLED, tracker.track(11));
        assertArrayEquals(
                new long[] {11, 12},
                tracker.settledBeyondCommittable(),
                "the not-yet-fetched 12 must still be remembered for the next commit");
        assertEquals(Tracked.ALREADY_SETTLED, tracker.track(12));
        assertEquals(Tracked.NEW, tracker.track(13));
        assertEquals(OptionalLong.of(10), tracker.committableOffset());
        tracker.settle(10);
        assertEquals(OptionalLong.of(13), tracker.committableOffset());
    }

    @Test
    void givenAPresettledOffsetWithNothingOpenBeforeIt_thenTheCommitMovesPastItAtOnce() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>(new long[] {7});
        assertEquals(Tracked.ALREADY_SETTLED, tracker.track(7));
        assertEquals(OptionalLong.of(8), tracker.committableOffset());
    }

    @Test
    void givenAttachments_thenTheyAreReleasedInOffsetOrderOnlyOnceACommitCoversThem() {
        ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
        for (long o = 0; o < 4; o++) {
            tracker.track(o);
        }
        tracker.settle(2, "ack-2");
        tracker.settle(0, "ack-0");
        List<String> released = new ArrayList<>();
        tracker.releaseCommitted(10, released::add);
        assertEquals(List.of("ack-0"), released, "2 is settled but the commit cannot pass the unsettled 1 yet");
        tracker.settle(1); // e.g. a retry: nothing attached
        assertEquals(OptionalLong.of(3), tracker.committableOffset());
        released.clear();
        tracker.releaseCommitted(2, released::add);
        assertEquals(List.of(), released, "a commit at 2 does not cover offset 2");
        tracker.releaseCommitted(3, released::add);
        assertEquals(List.of("ack-2"), released);
        tracker.settle(3, "ack-3");
        tracker.track(4);
        tracker.track(5);
        tracker.settle(5, "ack-5");
        released.clear();
        tracker.releaseAll(released::add);
        assertEquals(List.of("ack-3", "ack-5"), released, "committed or not, everything held comes back once");
    }

    @Test
    void givenRandomSettlementOrders_thenTheCommitNeverPassesAnUnsettledOffsetAndReachesTheEnd() {
        Random random = new Random(20240611L);
        for (int round = 0; round < 300; round++) {
            int count = 1 + random.nextInt(400);
            // Offsets with random gaps, tracked in increasing order, interleaved with random settlements,
            // as records arrive in batches while earlier ones are still running.
            List<Long> offsets = new ArrayList<>();
            long next = random.nextInt(1000);
            for (int i = 0; i < count; i++) {
                offsets.add(next);
                next += 1 + (random.nextInt(10) == 0 ? random.nextInt(5) : 0);
            }
            ContiguousOffsetTracker<String> tracker = new ContiguousOffsetTracker<>();
            TreeSet<Long> unsettled = new TreeSet<>();
            List<Long> settleable = new ArrayList<>();
            int tracked = 0;
            while (tracked < count || !settleable.isEmpty()) {
                if (tracked < count && (settleable.isEmpty() || random.nextBoolean())) {
                    int batch = 1 + random.nextInt(20);
                    for (int b = 0; b < batch && tracked < count; b++) {
                        long offset = offsets.get(tracked++);
                        assertEquals(Tracked.NEW, tracker.track(offset));
                        unsettled.add(offset);
                        settleable.add(offset);
                    }
                } else {
                    Collections.swap(settleable, random.nextInt(settleable.size()), settleable.size() - 1);
                    long offset = settleable.remove(settleable.size() - 1);
                    tracker.settle(offset, Long.toString(offset));
                    unsettled.remove(offset);
                }
                OptionalLong committable = tracker.committableOffset();
                assertTrue(committable.isPresent());
                if (!unsettled.isEmpty()) {
                    assertEquals(
                            unsettled.first().longValue(),
                            committable.getAsLong(),
                            "round " + round + ": the commit must sit exactly at the lowest unsettled offset");
                } else {
                    assertEquals(offsets.get(tracked - 1) + 1, committable.getAsLong());
                }
                assertEquals(unsettled.size(), tracker.unsettled());
            }
            assertEquals(
                    offsets.get(count - 1) + 1,
                    tracker.committableOffset().getAsLong(),
                    "round " + round + ": all settled must commit past the last offset");
            assertEquals(0, tracker.size());
            List<String> released = new ArrayList<>();
            tracker.releaseCommitted(tracker.committableOffset().getAsLong(), released::add);
            assertEquals(
                    offsets.stream().map(String::valueOf).toList(), released, "every attachment once, in offset order");
        }
    }
}
