package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.FlowControl;
import java.time.Duration;

/** How many more records a {@link KafkaPollLoop} may hand out now. */
interface Room {
    int free();

    boolean stopping();

    /**
     * Waits up to {@code max} for at least {@code atLeast} free slots (fewer on timeout); returns the free room.
     * Waiting for a batch rather than one slot keeps the loop from waking per settlement.
     */
    int await(int atLeast, Duration max) throws InterruptedException;

    /** How many records a batch of room should be; 1 disables batching. */
    int batch();

    /** The worker's in-flight allowance (jobs). */
    static Room of(FlowControl flow) {
        return new Room() {
            @Override
            public int free() {
                return flow.free();
            }

            @Override
            public boolean stopping() {
                return flow.stopping();
            }

            @Override
            public int await(int atLeast, Duration max) throws InterruptedException {
                return flow.awaitFree(atLeast, max);
            }

            @Override
            public int batch() {
                return Math.max(1, flow.capacity() / 4);
            }
        };
    }
}
