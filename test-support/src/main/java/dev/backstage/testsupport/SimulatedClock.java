package dev.backstage.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until a test moves it; shared safely between threads. */
public final class SimulatedClock extends Clock {
    private final AtomicReference<Instant> now;

    public SimulatedClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public Instant advance(Duration by) {
        return now.updateAndGet(t -> t.plus(by));
    }

    public void set(Instant to) {
        now.set(to);
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a SimulatedClock is in UTC; schedules carry their own zone");
    }
}
