package dev.backstage.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InFlightGateTest {

    @Test
    void givenAFullGate_whenReleasesReachTheBatchAWaiterAskedFor_thenItWakesWithThatRoom() throws Exception {
        InFlightGate gate = new InFlightGate(8);
        for (int i = 0; i < 8; i++) {
            gate.occupy();
        }
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return gate.awaitFree(4, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100); // let it wait
        for (int i = 0; i < 3; i++) {
            gate.release();
        }
        Thread.sleep(100);
        assertTrue(!waiter.isDone(), "3 free slots do not satisfy a wait for 4");
        gate.release();
        assertEquals(4, waiter.get(5, TimeUnit.SECONDS), "the fourth release wakes it long before its 30 s timeout");
    }

    @Test
    void givenTwoWaitersAskingForDifferentRoom_whenReleased_thenNeitherIsMissed() throws Exception {
        InFlightGate gate = new InFlightGate(10);
        for (int i = 0; i < 10; i++) {
            gate.occupy();
        }
        CompletableFuture<Integer> small = CompletableFuture.supplyAsync(() -> await(gate, 1));
        CompletableFuture<Integer> large = CompletableFuture.supplyAsync(() -> await(gate, 6));
        Thread.sleep(100);
        gate.release();
        assertTrue(small.get(5, TimeUnit.SECONDS) >= 1);
        for (int i = 0; i < 5; i++) {
            gate.release();
        }
        assertTrue(large.get(5, TimeUnit.SECONDS) >= 6, "the larger wait is woken once its room is there");
    }

    @Test
    void givenWorkInFlight_whenTheLastReleaseComes_thenDrainingReturnsTrue_andStoppingWakesAWaiterWithNoRoom()
            throws Exception {
        InFlightGate gate = new InFlightGate(2);
        gate.occupy();
        gate.occupy();
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> await(gate, 2));
        Thread.sleep(100);
        gate.beginStopping();
        assertEquals(0, waiter.get(5, TimeUnit.SECONDS), "a stopping gate gives no room");
        CompletableFuture.runAsync(() -> {
            gate.release();
            gate.release();
        });
        assertTrue(gate.awaitDrained(Duration.ofSeconds(5)));
    }

    private static int await(InFlightGate gate, int atLeast) {
        try {
            return gate.awaitFree(atLeast, Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
