package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.ScheduleStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which topology updates re-reconcile its pools: spec, deletion and the Ready verdict, not its other writes. */
class TopologyChangeFilterTest {
    private static final Instant T = Instant.parse("2026-12-02T10:00:00Z");
    private final TopologyChangeFilter filter = new TopologyChangeFilter();

    /** A reconciled topology: generation 1, Ready=True. */
    private static BackstageTopology reconciled() {
        BackstageTopology topology = redisTopology("ns", "orders", "default");
        topology.getMetadata().setGeneration(1L);
        topology.setStatus(new BackstageTopologyStatus());
        Conditions.set(
                topology.getStatus().getConditions(),
                Conditions.READY,
                Conditions.TRUE,
                "Declared",
                "2 broker objects exist on redis",
                1L,
                T);
        return topology;
    }

    static Stream<Arguments> updates() {
        return Stream.of(
                Arguments.of("its first verdict", true, (Consumer<BackstageTopology>) t -> t.setStatus(null)),
                Arguments.of("Ready=False, a broker error", true, (Consumer<BackstageTopology>) t -> Conditions.set(
                        t.getStatus().getConditions(),
                        Conditions.READY,
                        Conditions.FALSE,
                        "BrokerUnreachable",
                        "connection refused",
                        1L,
                        T)),
                Arguments.of("another message with the same reason", true, (Consumer<BackstageTopology>)
                        t -> t.getStatus().getConditions().get(0).setMessage("3 broker objects exist on redis")),
                Arguments.of("a spec edit (new generation)", true, (Consumer<BackstageTopology>)
                        t -> t.getMetadata().setGeneration(2L)),
                Arguments.of("marked for deletion", true, (Consumer<BackstageTopology>)
                        t -> t.getMetadata().setDeletionTimestamp("2026-12-02T10:00:00Z")),
                Arguments.of("the operator's finalizer added", false, (Consumer<BackstageTopology>)
                        t -> t.getMetadata().setFinalizers(List.of("backstagetopologies.backstage.dev/finalizer"))),
                Arguments.of("a schedule fired (status.schedules)", false, (Consumer<BackstageTopology>) t -> {
                    ScheduleStatus fired = new ScheduleStatus();
                    fired.setName("nightly");
                    t.getStatus().setSchedules(List.of(fired));
                }),
                Arguments.of("a label", false, (Consumer<BackstageTopology>)
                        t -> t.getMetadata().setLabels(java.util.Map.of("team", "x"))),
                Arguments.of("the same verdict at a later time", false, (Consumer<BackstageTopology>)
                        t -> t.getStatus().getConditions().get(0).setLastTransitionTime("2026-12-02T11:00:00Z")));
    }

    @ParameterizedTest(name = "{0} -> reconcile pools {1}")
    @MethodSource("updates")
    void givenATopologyUpdate_thenItsPoolsAreReconciledAsTabled(
            String what, boolean reconciles, Consumer<BackstageTopology> edit) {
        BackstageTopology other = Serialization.clone(reconciled());
        edit.accept(other);
        assertEquals(reconciles, filter.accept(other, reconciled()), what);
        assertEquals(reconciles, filter.accept(reconciled(), other), what + " (the other way)");
    }
}
