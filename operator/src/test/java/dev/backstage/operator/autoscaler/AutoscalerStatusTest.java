package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.scaling.SampleHistory;
import dev.backstage.operator.scaling.ScalingDecider;
import dev.backstage.operator.scaling.ScalingDecision;
import dev.backstage.operator.scaling.ScalingPolicy;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How one poll's outcome lands in the pool's status. */
class AutoscalerStatusTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    private static final Duration POLL = Duration.ofSeconds(5);
    private static final Duration REFRESH = Duration.ofSeconds(60);
    private static final ScalingPolicy POLICY = ScalingPolicy.builder()
            .minReplicas(1)
            .maxReplicas(4)
            .targetBacklogPerReplica(10)
            .build();

    private final BackstageWorkerPool pool = reconciledPool();

    private static BackstageWorkerPool reconciledPool() {
        BackstageWorkerPool pool = BackstageFixtures.pool("ns", "p", "t", "orders");
        pool.getMetadata().setGeneration(3L);
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setObservedGeneration(3L);
        status.setDesiredReplicas(1);
        Conditions.set(status.getConditions(), Conditions.READY, Conditions.TRUE, "ReplicasReady", "1/1", 3L, T0);
        pool.setStatus(status);
        return pool;
    }

    private static BacklogMeasurement measured(Instant at, long undelivered, long inFlight) {
        return BacklogMeasurement.measured(
                new BacklogReport(
                        at, List.of(new QueueBacklog("orders", undelivered, inFlight, 1, null, List.of(), null))),
                "redis");
    }

    private static ScalingDecision decide(int current, BacklogMeasurement measurement) {
        return new ScalingDecider()
                .decide(
                        POLICY,
                        current,
                        SampleHistory.empty().append(measurement.toSample(current), Duration.ofMinutes(5)));
    }

    private Condition condition(String type) {
        return Conditions.find(pool.getStatus().getConditions(), type).orElseThrow();
    }

    @Test
    void givenAMeasurement_thenFiguresTimeAndBacklogAvailableAreWritten_andTheReadyConditionIsLeftAlone() {
        var outcome = AutoscalerStatus.apply(pool, measured(T0, 12, 3), null, null, POLL, REFRESH, T0);

        BackstageWorkerPoolStatus status = pool.getStatus();
        assertEquals(15L, status.getBacklog().getOutstanding());
        assertEquals(1L, status.getDeadLetters().getTotal());
        assertEquals("2025-03-01T10:00:00Z", status.getBacklogMeasuredAt());
        assertEquals(
                Conditions.TRUE, condition(AutoscalerStatus.BACKLOG_AVAILABLE).getStatus());
        assertEquals("Measured", condition(AutoscalerStatus.BACKLOG_AVAILABLE).getReason());
        assertEquals(
                "measured every 5s through the redis provider's backlog probe",
                condition(AutoscalerStatus.BACKLOG_AVAILABLE).getMessage());
        assertEquals("1/1", condition(Conditions.READY).getMessage());
        assertTrue(outcome.backlogChanged(), "a new condition is news");
        assertFalse(outcome.scaled());
        assertTrue(
                Conditions.find(status.getConditions(), AutoscalerStatus.SCALING_LIMITED)
                        .isEmpty(),
                "no ScalingLimited while autoscaling is off");
    }

    @Test
    void givenTheSameFiguresWithinTheRefreshPeriod_thenNothingChanges_andAfterItOnlyTheTimeMoves() {
        AutoscalerStatus.apply(pool, measured(T0, 12, 3), null, null, POLL, REFRESH, T0);
        String before = Serialization.asJson(pool.getStatus());

        var outcome = AutoscalerStatus.apply(
                pool, measured(T0.plusSeconds(30), 12, 3), null, null, POLL, REFRESH, T0.plusSeconds(30));
        assertEquals(before, Serialization.asJson(pool.getStatus()));
        assertFalse(outcome.backlogChanged());

        AutoscalerStatus.apply(
                pool, measured(T0.plusSeconds(60), 12, 3), null, null, POLL, REFRESH, T0.plusSeconds(60));
        assertEquals("2025-03-01T10:01:00Z", pool.getStatus().getBacklogMeasuredAt());

        AutoscalerStatus.apply(
                pool, measured(T0.plusSeconds(65), 13, 3), null, null, POLL, REFRESH, T0.plusSeconds(65));
        assertEquals(
                "2025-03-01T10:01:05Z", pool.getStatus().getBacklogMeasuredAt(), "a changed figure is written now");
        assertEquals(16L, pool.getStatus().getBacklog().getOutstanding());
    }

    @Test
    void givenTheBrokerCannotBeRead_thenTheLastGoodFiguresAndTheirTimeStay_andTheConditionSaysWhy() {
        AutoscalerStatus.apply(pool, measured(T0, 12, 3), null, null, POLL, REFRESH, T0);
        Instant later = T0.plusSeconds(90); // past the refresh period: still nothing may be rewritten as 0

        var outcome = AutoscalerStatus.apply(
                pool,
                BacklogMeasurement.unavailable(later, "BrokerUnreachable", "redis at redis://host:6379 unreachable"),
                null,
                null,
                POLL,
                REFRESH,
                later);

        assertEquals(15L, pool.getStatus().getBacklog().getOutstanding());
        assertEquals("2025-03-01T10:00:00Z", pool.getStatus().getBacklogMeasuredAt());
        Condition available = condition(AutoscalerStatus.BACKLOG_AVAILABLE);
        assertEquals(Conditions.FALSE, available.getStatus());
        assertEquals("BrokerUnreachable", available.getReason());
        assertEquals(
                "redis at redis://host:6379 unreachable; backlog and deadLetters keep the last good figures,"
                        + " measured at 2025-03-01T10:00:00Z; replicas are held",
                available.getMessage());
        assertEquals("2025-03-01T10:01:30Z", available.getLastTransitionTime());
        assertTrue(outcome.backlogChanged());
        assertEquals(Conditions.TRUE, outcome.backlogBefore().getStatus());
    }

    @Test
    void givenNoFigureEver_thenTheConditionSaysSo_andNoBacklogIsInvented() {
        AutoscalerStatus.apply(
                pool, BacklogMeasurement.unavailable(T0, "SecretNotFound", "no Secret"), null, null, POLL, REFRESH, T0);
        assertNull(pool.getStatus().getBacklog());
        assertNull(pool.getStatus().getDeadLetters());
        assertTrue(condition(AutoscalerStatus.BACKLOG_AVAILABLE).getMessage().contains("no figures measured yet"));
    }

    @Test
    void givenAFirstDecisionThatKeepsTheCount_thenDesiredReplicasIsStillWritten_butNoScaleIsRecorded() {
        pool.getStatus().setDesiredReplicas(null); // a new pool: the reconciler leaves desiredReplicas to us
        BacklogMeasurement backlog = measured(T0, 5, 0);
        ScalingDecision decision = decide(1, backlog);
        assertEquals(1, decision.desiredReplicas(), decision.reason());

        var outcome = AutoscalerStatus.apply(pool, backlog, POLICY, decision, POLL, REFRESH, T0);

        assertEquals(false, outcome.scaled());
        assertEquals(1, pool.getStatus().getDesiredReplicas());
        assertNull(pool.getStatus().getLastScaleTime());
    }

    @Test
    void givenADecisionThatScales_thenDesiredTimeAndReasonAreWritten_andScalingLimitedFollowsTheBound() {
        BacklogMeasurement backlog = measured(T0, 80, 0);
        ScalingDecision decision = decide(1, backlog);
        assertEquals(4, decision.desiredReplicas(), decision.reason());

        var outcome = AutoscalerStatus.apply(pool, backlog, POLICY, decision, POLL, REFRESH, T0);

        assertTrue(outcome.scaled());
        assertEquals(1, outcome.scaledFrom());
        assertEquals(4, outcome.scaledTo());
        assertEquals(4, pool.getStatus().getDesiredReplicas());
        assertEquals("2025-03-01T10:00:00Z", pool.getStatus().getLastScaleTime());
        assertEquals(decision.reason(), pool.getStatus().getLastScaleReason());
        Condition limited = condition(AutoscalerStatus.SCALING_LIMITED);
        assertEquals(Conditions.TRUE, limited.getStatus());
        assertEquals("MaxReplicas", limited.getReason());
        assertEquals("the backlog asks for more than maxReplicas (4)", limited.getMessage());

        // Holding: scale fields untouched, ScalingLimited back to False.
        BacklogMeasurement calmer = measured(T0.plusSeconds(5), 35, 0);
        var hold = AutoscalerStatus.apply(pool, calmer, POLICY, decide(4, calmer), POLL, REFRESH, T0.plusSeconds(5));
        assertFalse(hold.scaled());
        assertEquals("2025-03-01T10:00:00Z", pool.getStatus().getLastScaleTime());
        assertEquals(
                Conditions.FALSE, condition(AutoscalerStatus.SCALING_LIMITED).getStatus());
        assertEquals(
                "DesiredWithinRange",
                condition(AutoscalerStatus.SCALING_LIMITED).getReason());

        // Autoscaling turned off: the condition goes away.
        AutoscalerStatus.apply(pool, calmer, null, null, POLL, REFRESH, T0.plusSeconds(10));
        assertTrue(Conditions.find(pool.getStatus().getConditions(), AutoscalerStatus.SCALING_LIMITED)
                .isEmpty());
    }

    @Test
    void givenAPoolWithoutStatus_thenOneIsCreated() {
        BackstageWorkerPool bare = BackstageFixtures.pool("ns", "p", "t", "orders");
        AutoscalerStatus.apply(bare, measured(T0, 1, 0), null, null, POLL, REFRESH, T0);
        assertEquals(1L, bare.getStatus().getBacklog().getOutstanding());
    }
}
