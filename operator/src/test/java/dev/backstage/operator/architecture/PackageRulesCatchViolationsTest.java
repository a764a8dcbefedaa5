package dev.backstage.operator.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.backstage.testsupport.ArchViolations;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rules {@link PackageGraphTest} checks on the operator fail when what they forbid is put back. The same rule
 * objects ({@link OperatorPackageRules}) are evaluated on the fixtures of {@code architecture.fixtures} (test classes
 * only, never imported by the real rules), which put back the cycle {@code pool ⇄ autoscaler}, a scaling decision
 * that does I/O and a model type that uses {@code java.net}; each rule must report exactly those (and nothing
 * about {@code PureDecider}, which keeps to them).
 */
class PackageRulesCatchViolationsTest {
    private static final String FIXTURES = "dev.backstage.operator.architecture.fixtures";
    private static final JavaClasses FIXTURE_CLASSES = new ClassFileImporter().importPackages(FIXTURES);

    @Test
    void givenACyclePutBackBetweenPoolAndAutoscaler_whenTheCycleRuleRuns_thenItReportsThatOneCycle() {
        EvaluationResult result =
                OperatorPackageRules.packagesFreeOfCycles(FIXTURES).evaluate(FIXTURE_CLASSES);

        List<String> cycles = result.getFailureReport().getDetails().stream()
                .filter(line -> line.startsWith("Cycle detected: "))
                .toList();
        System.out.println(result.getFailureReport());
        assertEquals(1, result.getFailureReport().getDetails().size(), "only the cycle expected");
        assertEquals(1, cycles.size(), "one cycle expected, got " + result.getFailureReport());
        String cycle = cycles.get(0);
        assertTrue(
                cycle.contains("Slice autoscaler") && cycle.contains("Slice pool"),
                "the cycle must be pool ⇄ autoscaler: " + cycle);
        assertTrue(!cycle.contains("Slice scaling") && !cycle.contains("Slice model"), cycle);
    }

    @Test
    void givenACyclePutBackBetweenPoolAndAutoscaler_whenTheLayerRuleRuns_thenItReportsOnlyAutoscalerToPool() {
        // The fixtures fill 4 of the 14 layers; the other layers' emptiness is not what this test is about.
        ArchRule layers = OperatorPackageRules.layersPointOneWay(FIXTURES).withOptionalLayers(true);

        Set<String> edges = dependencies(layers.evaluate(FIXTURE_CLASSES));

        assertEquals(Set.of("autoscaler.FixtureMonitor -> pool.FixturePool"), edges);
    }

    @Test
    void givenAScalingClassThatDoesIo_whenTheScalingRuleRuns_thenItReportsThatClassAndItsIoTypesOnly() {
        Set<String> edges =
                dependencies(OperatorPackageRules.scalingDoesNoIo(FIXTURES).evaluate(FIXTURE_CLASSES));

        assertEquals(
                Set.of(
                        "scaling.LeakyDecider -> java.io.IOException",
                        "scaling.LeakyDecider -> java.lang.Thread",
                        "scaling.LeakyDecider -> java.nio.file.Files",
                        "scaling.LeakyDecider -> java.nio.file.Path"),
                edges);
    }

    @Test
    void givenAModelClassThatUsesTheNetwork_whenTheModelRuleRuns_thenItReportsThatClassOnly() {
        Set<String> edges =
                dependencies(OperatorPackageRules.modelDoesNoIo(FIXTURES).evaluate(FIXTURE_CLASSES));

        assertEquals(Set.of("model.FixtureSpec -> java.net.URI"), edges);
    }

    private static Set<String> dependencies(EvaluationResult result) {
        return ArchViolations.dependencies(result, FIXTURES);
    }
}
