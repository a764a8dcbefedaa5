package dev.backstage.runtime.core;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.runtime.spi.schedule.TickCatchUp;
import dev.backstage.runtime.spi.schedule.TickDecision;
import dev.backstage.runtime.spi.schedule.TickPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues cron jobs: at each tick of each {@link Schedule}, one job, <em>once across any number of schedulers</em>
 * (run one per replica for availability). Every tick is claimed with the dedupe key {@code cron:{name}:{tickMs}}
 * before it is enqueued ({@link CronTick}), so the dedupe capability is required: {@link Builder#build()} fails
 * without it. The job is the seeds' cron entry, so seed workers run it (a Java handler can take
 * {@link dev.backstage.runtime.api.CronPayload}).
 *
 * <p>Missed ticks follow Kubernetes CronJob's {@code startingDeadlineSeconds} ({@link TickPolicy}): when several
 * ticks came due at once (a pause, a stopped loop) only the latest is fired, and only while it is within the
 * schedule's starting deadline; ticks that came due while the broker failed or was slow (a failover) are each fired,
 * in order, up to {@link TickPolicy#OUTAGE_CATCH_UP} late. A scheduler keeps no state of its own: at start it fires the latest tick within
 * the deadline (once across the fleet, thanks to the claim); without a deadline it starts with the next tick.
 *
 * <pre>{@code
 * try (Scheduler scheduler = Scheduler.builder().provider(RedisProvider.connect("redis://localhost:6379"))
 *         .schedule(Schedule.of("nightly-report", "0 2 * * *", "report.build").inZone("Europe/Paris"))
 *         .build()) {
 *     scheduler.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>Kept as one class: the builder, the per-schedule tick state and the one firing loop make a small scheduler; the
 * tick rules it shares with the operator are already apart in {@code spi.schedule}.
 */
public final class Scheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
    /** The loop never sleeps longer than this, so a stepped clock or a slow turn is caught up promptly. */
    static final Duration MAX_SLEEP = Duration.ofSeconds(1);
    /** A tick whose claim or publish failed is tried again after this pause (it stays due meanwhile). */
    static final Duration RETRY_PAUSE = Duration.ofMillis(200);

    private final CapabilitySet capabilities;
    private final Clock clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private ExecutorService loop;
    private volatile boolean running;

    /** What one schedule has done in this scheduler. */
    public record Stats(long fired, long alreadyFired, long missed, Instant lastFiredTick, String lastError) {}

    private static final class Entry {
        final Schedule schedule;
        Instant handledThrough;
        long fired;
        long alreadyFired;
        long missed;
        Instant lastFiredTick;
        String lastError;
        Instant retryAt;
        /** Which catch-up the next decision gets: late ticks are each fired after the broker failed or was slow. */
        final TickCatchUp catchUp = new TickCatchUp();

        Entry(Schedule schedule, Instant handledThrough) {
            this.schedule = schedule;
            this.handledThrough = handledThrough;
        }
    }

    private Scheduler(CapabilitySet capabilities, Clock clock, List<Schedule> schedules) {
        this.capabilities = capabilities;
        this.clock = clock;
        Instant now = clock.instant();
        for (Schedule schedule : schedules) {
            if (entries.putIfAbsent(schedule.name(), new Entry(schedule, TickPolicy.startBoundary(schedule, now)))
                    != null) {
                throw new ConfigurationException("two schedules are named '" + schedule.name()
                        + "': a schedule's name is its identity across schedulers, give each its own");
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Fires what is due at the clock's current time, on the calling thread: at most one tick per schedule. The loop
     * started by {@link #start()} calls it; a test on a simulated clock may call it directly.
     *
     * @return the ticks this call fired or found already fired
     */
    public List<CronTick.Outcome> runDue() {
        return runDue(clock.instant());
    }

    /** One turn at {@code now}: the clock is read once per turn, by the caller. */
    private synchronized List<CronTick.Outcome> runDue(Instant now) {
        List<CronTick.Outcome> outcomes = new ArrayList<>();
        for (Entry entry : entries.values()) {
            TickDecision decision =
                    TickPolicy.decide(entry.schedule, entry.handledThrough, now, entry.catchUp.window());
            if (decision.fire().isEmpty()) {
                if (decision.missed() > 0) {
                    LOG.warn(
                            "schedule '{}': tick {} skipped, {}s past its starting deadline of {}s ({} missed)",
                            entry.schedule.name(),
                            decision.tooLate().orElse(null),
                            Duration.between(decision.handledThrough(), now).toSeconds(),
                            entry.schedule.startingDeadline().toSeconds(),
                            decision.missed());
                }
                entry.missed += decision.missed();
                entry.handledThrough = decision.handledThrough();
                continue;
            }
            Instant tick = decision.fire().get();
            entry.retryAt = null;
            long calledAt = System.nanoTime();
            try {
                CronTick.Outcome outcome =
                        CronTick.fire(entry.schedule, tick, capabilities.dedupe(), capabilities.jobs(), clock);
                // A call that took longer than a turn (a failover the client rode out) leaves ticks due behind it.
                entry.catchUp.answered(
                        Duration.ofNanos(System.nanoTime() - calledAt),
                        MAX_SLEEP,
                        entry.schedule,
                        decision.handledThrough(),
                        clock.instant());
                if (outcome.alreadyFired()) {
                    entry.alreadyFired++;
                } else {
                    entry.fired++;
                    entry.lastFiredTick = tick;
                    LOG.debug("schedule '{}': fired tick {} as job {}", entry.schedule.name(), tick, outcome.jobId());
                }
                entry.missed += decision.missed();
                entry.handledThrough = decision.handledThrough();
                entry.lastError = null;
                outcomes.add(outcome);
            } catch (CronTick.ClaimedNotPublishedException e) {
                entry.catchUp.failed();
                entry.handledThrough = decision.handledThrough(); // claimed: no one may fire it again
                entry.lastError = e.getMessage();
                LOG.error("schedule '{}': {}", entry.schedule.name(), e.getMessage());
            } catch (CronTick.NotPublishedException e) {
                // Released: the tick stays due and is tried again next turn, within the deadline.
                entry.catchUp.failed();
                entry.lastError = e.getMessage();
                entry.retryAt = now.plus(RETRY_PAUSE);
                LOG.warn("schedule '{}': {}", entry.schedule.name(), entry.lastError);
            } catch (RuntimeException e) {
                // The claim itself failed (the dedupe backend is unreachable): try again next turn, within the
                // deadline.
                entry.catchUp.failed();
                entry.lastError = "claiming tick " + tick + " failed: " + e.getMessage();
                entry.retryAt = now.plus(RETRY_PAUSE);
                LOG.warn("schedule '{}': {}", entry.schedule.name(), entry.lastError);
            }
        }
        return outcomes;
    }

    /** Starts the loop on a daemon thread ({@code backstage-scheduler-N}). */
    public synchronized Scheduler start() {
        if (running) {
            return this;
        }
        running = true;
        LOG.info(
                "scheduler started with {} schedule(s), {}",
                entries.size(),
                capabilities.report().replace('\n', ' '));
        loop = Executors.newSingleThreadExecutor(new NamedThreads("backstage-scheduler", true));
        loop.submit(this::loop);
        return this;
    }

    /**
     * Each turn reads the clock once, fires what is due, and sleeps until the next tick as the schedules say (the
     * tick after the last one handled, not "now plus a period"), rounded up to the millisecond so it never wakes
     * before the boundary. A tick that is still due (a slow turn, a retry) gets a turn at once.
     */
    private void loop() {
        while (running) {
            try {
                Instant now = clock.instant();
                runDue(now);
                long nanos = Duration.between(now, nextWake(now)).toNanos();
                if (nanos > 0) {
                    Thread.sleep((nanos + 999_999) / 1_000_000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("scheduler turn failed; continuing", e);
            }
        }
    }

    /** The earliest tick not yet handled (or its retry), at most {@link #MAX_SLEEP} after {@code now}. */
    synchronized Instant nextWake(Instant now) {
        Instant wake = now.plus(MAX_SLEEP);
        for (Entry entry : entries.values()) {
            Instant next = entry.schedule
                    .cron()
                    .next(entry.handledThrough, entry.schedule.zone())
                    .orElse(null);
            if (next != null && entry.retryAt != null && entry.retryAt.isAfter(next)) {
                next = entry.retryAt;
            }
            if (next != null && next.isBefore(wake)) {
                wake = next;
            }
        }
        return wake;
    }

    public synchronized Stats stats(String scheduleName) {
        Entry entry = entries.get(scheduleName);
        if (entry == null) {
            throw new IllegalArgumentException("no schedule named '" + scheduleName + "'");
        }
        return new Stats(entry.fired, entry.alreadyFired, entry.missed, entry.lastFiredTick, entry.lastError);
    }

    @Override
    public void close() {
        ExecutorService stopping;
        synchronized (this) {
            running = false;
            stopping = loop;
            loop = null;
        }
        if (stopping != null) {
            stopping.shutdownNow();
            try {
                stopping.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static final class Builder {
        private Provider provider;
        private DedupeCapability dedupe;
        private Clock clock = Clock.systemUTC();
        private final List<Schedule> schedules = new ArrayList<>();

        /** The broker the jobs go to (its dedupe is used unless {@link #dedupe} supplies one). */
        public Builder provider(Provider value) {
            this.provider = value;
            return this;
        }

        /** A dedupe backend other than the provider's, e.g. {@code RedisDedupe.connect(url)} for RabbitMQ or Kafka. */
        public Builder dedupe(DedupeCapability value) {
            this.dedupe = value;
            return this;
        }

        /** The clock ticks are computed from (tests pass a simulated one). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        public Builder schedule(Schedule value) {
            schedules.add(Objects.requireNonNull(value, "schedule"));
            return this;
        }

        /**
         * @throws CapabilityMissingException when neither the provider nor a supplied backend gives dedupe
         */
        public Scheduler build() {
            if (provider == null) {
                throw new ConfigurationException("a Scheduler needs a provider: Scheduler.builder().provider(...)");
            }
            CapabilitySet capabilities = new CapabilitySet(provider, null, dedupe, null);
            if (!capabilities.present().contains(Capability.DEDUPE)) {
                throw new CapabilityMissingException(
                        provider.name(),
                        Capability.DEDUPE,
                        "a Scheduler claims every tick with a dedupe key so that any number of schedulers enqueue it"
                                + " once; supply one, e.g. Scheduler.builder().dedupe(RedisDedupe.connect("
                                + "\"redis://host:6379\"))");
            }
            return new Scheduler(capabilities, clock, schedules);
        }
    }
}
