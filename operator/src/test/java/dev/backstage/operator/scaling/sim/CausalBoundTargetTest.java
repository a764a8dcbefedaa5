package dev.backstage.operator.scaling.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The autoscaling target, one row per scenario of {@link AutoscalingSimulation}: our autoscaler (backlog target
 * alone) has the needed replicas ready within 1.5x the causal bound, which is job time + pod start-up + one poll
 * (before a job finishes, slow jobs look like fast ones; before the next poll, nothing changed is seen). The reach
 * is the mean over the simulation's loop phases of the time from each rise of the need to that many replicas
 * ready, as the simulation prints it. Tagged slow: the ten scenarios simulate 10 runs each (98 s at load 30 on
 * 2 cores).
 */
@Tag("slow")
class CausalBoundTargetTest {

    static Stream<String> scenarioNames() {
        return AutoscalingSimulation.scenarios().stream().map(s -> s.trace().name());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarioNames")
    void givenAScenario_whenOurAutoscalerRunsIt_thenTheNeededReplicasAreReadyWithinOneAndAHalfTimesTheCausalBound(
            String name) {
        Scenario scenario = AutoscalingSimulation.scenarios().stream()
                .filter(s -> s.trace().name().equals(name))
                .findFirst()
                .orElseThrow();
        Contestant ours = scenario.contestants().stream()
                .filter(c -> c.role() == Contestant.Role.OURS)
                .findFirst()
                .orElseThrow();
        SimulationRunner runner = new SimulationRunner(null);
        List<RunResult> runs = new ArrayList<>();
        for (int phase = 0; phase < AutoscalingSimulation.PHASES; phase++) {
            runs.add(runner.run(scenario, ours, phase));
        }
        double reach = Summary.of(ours, runs).reachMean();
        double bound = scenario.causalBoundSeconds(AutoscalingSimulation.OUR_POLL_MS);

        assertTrue(
                reach <= Scenario.TARGET_FACTOR * bound,
                String.format(
                        Locale.ROOT,
                        "%s: %s reached the need in %.1f s on average, over %.1fx the causal bound of %.1f s (job %.1f s +"
                                + " start-up %.0f s + poll %d s)",
                        name,
                        ours.label(),
                        reach,
                        Scenario.TARGET_FACTOR,
                        bound,
                        scenario.workload().serviceSeconds(),
                        scenario.workload().startupSeconds(),
                        AutoscalingSimulation.OUR_POLL_MS / 1000));
    }
}
