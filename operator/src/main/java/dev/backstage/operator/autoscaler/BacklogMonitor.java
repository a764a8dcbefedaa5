package dev.backstage.operator.autoscaler;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.polling.PolledResource;
import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.operator.scaling.PodStartupTimes;
import dev.backstage.operator.scaling.SampleHistory;
import dev.backstage.operator.scaling.ScalingDecider;
import dev.backstage.operator.scaling.ScalingDecision;
import dev.backstage.operator.scaling.ScalingPolicy;
import dev.backstage.operator.status.StatusPatcher;
import dev.backstage.operator.workload.DeploymentReplicas;
import dev.backstage.runtime.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog poll of one pool, every {@code pollInterval} on a monitor thread ({@link BacklogMonitors}, a
 * {@code PerResourcePoller}): measure through the topology's
 * probe, remember the sample, decide (while autoscaling is on), write status when it changed, tell the user with an
 * Event when the pool scales or its backlog becomes unreadable or readable again.
 *
 * <p>It never touches the Deployment: a new {@code status.desiredReplicas} makes the pool reconciler scale it
 * ({@code PoolChangeFilter}, {@code DeploymentReplicas}). Polls of one monitor never overlap (each schedules the
 * next when it ends), so the sample history needs no lock. The next tick is {@code pollInterval} after this one
 * ends, or sooner when the decision asks for a quick follow-up ({@link ScalingDecision#probeAgainIn()}: after a
 * scale-up that activated the pool or answered an arrival step).
 */
final class BacklogMonitor implements PolledResource<BackstageWorkerPool> {
    private static final Logger LOG = LoggerFactory.getLogger(BacklogMonitor.class);
    /** History kept while autoscaling is off: enough for rates the moment it is turned on. */
    static final Duration UNSCALED_RETENTION = Duration.ofMinutes(2);

    /** What the monitor knows of its pool and topology; replaced whole. */
    record Snapshot(BackstageWorkerPool pool, BackstageTopology topology) {}

    private final String key;
    private final BacklogMeasurer measurer;
    private final PodStartupMeter startups;
    private final StatusPatcher<BackstageWorkerPool> patcher;
    private final ScalingDecider decider;
    private final EventRecorder events;
    private final Clock clock;
    private final Duration statusRefresh;
    /** Polls in a row whose copy of the pool showed no reconciler status (only the monitor thread touches it). */
    private int unreconciledPolls;

    private volatile Snapshot snapshot;
    private SampleHistory history = SampleHistory.empty();
    private volatile boolean stopped;
    /** "available" or the last unavailable reason, so the log says each change once. Tick thread only. */
    private String lastAvailability;
    /** A quick follow-up poll the last decision asked for ({@link ScalingDecision#probeAgainIn()}). Tick thread only. */
    private Duration followUp;
    /** The BacklogStalled condition's memory. Tick thread only. */
    private final StallDetector stalls = new StallDetector();

    BacklogMonitor(
            Snapshot first,
            BacklogMeasurer measurer,
            PodStartupMeter startups,
            StatusPatcher<BackstageWorkerPool> patcher,
            ScalingDecider decider,
            EventRecorder events,
            Clock clock,
            Duration statusRefresh) {
        this.snapshot = Objects.requireNonNull(first, "first");
        this.key = first.pool().getMetadata().getNamespace() + "/"
                + first.pool().getMetadata().getName();
        this.measurer = measurer;
        this.startups = startups;
        this.patcher = patcher;
        this.decider = decider;
        this.events = events;
        this.clock = clock;
        this.statusRefresh = statusRefresh;
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /**
     * The latest pool and the topology as the reconciler saw it. The copy may be older than one already held
     * (resourceVersions are opaque and must not be compared); a status patch from a stale copy fails its
     * resourceVersion test and is recomputed from a fresh read, so the last delivered copy is good enough.
     */
    void update(BackstageWorkerPool pool, BackstageTopology topology) {
        synchronized (this) {
            snapshot = new Snapshot(pool, topology);
        }
    }

    /** The latest pool from the informer (any write, status included), or from our own patch. */
    @Override
    public void refresh(BackstageWorkerPool pool) {
        synchronized (this) {
            snapshot = new Snapshot(pool, snapshot.topology());
        }
    }

    @Override
    public void stop() {
        stopped = true;
    }

    /** One poll; the next one comes after the pool's poll interval, or the follow-up its decision asked for. */
    @Override
    public Duration poll() {
        followUp = null;
        try {
            measureAndWrite();
        } catch (RuntimeException e) {
            LOG.warn(
                    "backlog monitor of pool {} failed this poll (next in {}): {}",
                    key,
                    Durations.format(PoolScalingPolicy.pollInterval(snapshot.pool())),
                    e.toString());
            LOG.debug("backlog monitor failure of pool {}", key, e);
        }
        return nextDelay(PoolScalingPolicy.nextPoll(snapshot.pool()), followUp);
    }

    private void measureAndWrite() {
        Snapshot seen = snapshot;
        BackstageWorkerPool pool = seen.pool();
        BacklogMeasurement measurement = measurer.measure(pool, seen.topology());
        if (stopped) {
            return; // the pool went away while the broker answered
        }
        logAvailability(measurement);
        // The count asked for when measured: a change between two samples is a scale event (down-moves are
        // rate-limited by it).
        BacklogSample sample = measurement
                .toSample(readyReplicas(pool))
                .withAskedReplicas(PoolScalingPolicy.autoscalingOn(pool) ? DeploymentReplicas.of(pool) : null);
        ScalingPolicy retentionPolicy = policyOrNull(pool, seen.topology(), measurement);
        history = history.append(
                sample, retentionPolicy == null ? UNSCALED_RETENTION : retentionPolicy.historyRetention());
        SampleHistory decidedOn = history;
        Duration pollInterval = PoolScalingPolicy.pollInterval(pool);
        Instant now = clock.instant();
        BackstageWorkerPool base = snapshot.pool(); // the newest copy: the informer's may have come in meanwhile
        if (!reconciledOnce(base)) {
            // The reconciler's first status write adds the whole status object and would replace ours; its later
            // writes are per-field diffs. Measure now (the history keeps it), write once it has written.
            BackstageWorkerPool read = unreconciledPolls++ == 0 ? null : patcher.read(pool);
            if (read == null || !reconciledOnce(read)) {
                LOG.debug("pool {}: not reconciled yet; status written from the next poll", key);
                return;
            }
            // The copy a reconcile hands over is the one it started from: one that started before its own first
            // status write can arrive after the informer's newer copy, and no event replaces it while nothing
            // changes. From the second poll on, the pool is read instead of waiting for an event.
            refresh(read);
            base = read;
        }
        unreconciledPolls = 0;

        Duration measuredStartup =
                startups.startup(pool).map(PodStartupTimes.Measured::startup).orElse(null);
        var written = patcher.update(base, fresh -> {
            ScalingPolicy policy = policyOrNull(fresh, seen.topology(), measurement);
            ScalingDecision decision = policy == null
                    ? null
                    : ScalingControls.decisionToWrite(
                            fresh, decider.decide(policy, DeploymentReplicas.of(fresh), decidedOn));
            if (decision != null) {
                LOG.debug("pool {}: {}", key, decision.reason());
                followUp = decision.probeAgainIn(); // the last attempt's decision is the one written
            }
            AutoscalerStatus.Outcome outcome =
                    AutoscalerStatus.apply(fresh, measurement, policy, decision, pollInterval, statusRefresh, now);
            fresh.getStatus()
                    .setMeasuredPodStartupTime(measuredStartup == null ? null : Durations.format(measuredStartup));
            Optional<Integer> fellBack = ScalingControls.applyFallback(fresh, measurement.available(), now);
            if (measurement.available()) {
                stalls.apply(fresh, pollInterval, now);
            }
            return fellBack.isEmpty()
                    ? outcome
                    : new AutoscalerStatus.Outcome(
                            fellBack.get(),
                            fresh.getStatus().getDesiredReplicas(),
                            ScalingControls.FALLBACK_REASON,
                            outcome.backlogBefore(),
                            outcome.backlogAfter());
        });
        if (written.isEmpty()) {
            return;
        }
        BackstageWorkerPool after = written.get().resource();
        if (after == null) {
            return; // nothing changed
        }
        refresh(after);
        AutoscalerStatus.Outcome outcome = written.get().result();
        if (outcome.scaled()) {
            LOG.info(
                    "pool {}: desired replicas {} -> {}: {}",
                    key,
                    outcome.scaledFrom(),
                    outcome.scaledTo(),
                    outcome.scaleReason());
            events.normal(
                    after,
                    "Autoscaled",
                    "desired replicas " + outcome.scaledFrom() + " -> " + outcome.scaledTo() + ": "
                            + outcome.scaleReason());
        }
        if (outcome.backlogChanged()) {
            var condition = outcome.backlogAfter();
            if (Conditions.FALSE.equals(condition.getStatus())) {
                events.warning(after, "BacklogUnavailable", condition.getReason() + ": " + condition.getMessage());
            } else if (outcome.backlogBefore() != null) {
                events.normal(after, "BacklogAvailable", condition.getMessage());
            }
        }
    }

    /**
     * The regular interval, or the follow-up a scale-up asked for when that is sooner: the extra sample measures
     * the arrival rate that made the decision (see {@code ScalingDecider.FOLLOW_UP}).
     */
    static Duration nextDelay(Duration pollInterval, Duration followUp) {
        return followUp != null && followUp.compareTo(pollInterval) < 0 ? followUp : pollInterval;
    }

    /** The policy while autoscaling is on; a spec the schema should have refused is logged and treated as off. */
    private ScalingPolicy policyOrNull(
            BackstageWorkerPool pool, BackstageTopology topology, BacklogMeasurement measurement) {
        if (!PoolScalingPolicy.autoscalingOn(pool)) {
            return null;
        }
        try {
            // The pods' measured start-up replaces the configured one once enough pods were seen Ready.
            return PoolScalingPolicy.of(
                    pool,
                    topology,
                    measurement.report(),
                    startups.startup(pool)
                            .map(PodStartupTimes.Measured::startup)
                            .orElse(null));
        } catch (IllegalArgumentException e) {
            LOG.warn("pool {}: autoscaling spec not usable, not scaling: {}", key, e.getMessage());
            return null;
        }
    }

    private void logAvailability(BacklogMeasurement measurement) {
        String now = measurement.available() ? "available" : measurement.reason();
        if (!now.equals(lastAvailability)) {
            if (measurement.available()) {
                LOG.info("pool {}: backlog measured through the {} probe", key, measurement.provider());
            } else {
                LOG.warn("pool {}: backlog unavailable ({}): {}", key, measurement.reason(), measurement.message());
            }
            lastAvailability = now;
        }
    }

    private static boolean reconciledOnce(BackstageWorkerPool pool) {
        return pool.getStatus() != null && pool.getStatus().getObservedGeneration() != null;
    }

    private static int readyReplicas(BackstageWorkerPool pool) {
        Integer ready = pool.getStatus() == null ? null : pool.getStatus().getReadyReplicas();
        return ready == null ? 0 : Math.max(0, ready);
    }
}
