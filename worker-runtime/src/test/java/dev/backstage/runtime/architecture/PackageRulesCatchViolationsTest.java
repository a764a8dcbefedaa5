package dev.backstage.runtime.architecture;

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
 * The rules {@link PackageGraphTest} checks on the runtime fail when what they forbid is put back. The same rule
 * objects ({@link RuntimePackageRules}) are evaluated on the fixtures of {@code architecture.fixtures} (test classes
 * only, never imported by the real rules): a provider contract that reaches into the core (the cycle
 * {@code spi ⇄ core}) and names a Jackson type, a provider that uses logback, and a schedule class that uses Jackson
 * privately, which the rules allow. Each rule must report exactly its violations.
 */
class PackageRulesCatchViolationsTest {
    private static final String FIXTURES = "dev.backstage.runtime.architecture.fixtures";
    private static final JavaClasses FIXTURE_CLASSES = new ClassFileImporter().importPackages(FIXTURES);

    @Test
    void givenACyclePutBackBetweenSpiAndCore_whenTheCycleRuleRuns_thenItReportsThatOneCycle() {
        EvaluationResult result =
                RuntimePackageRules.packagesFreeOfCycles(FIXTURES).evaluate(FIXTURE_CLASSES);

        System.out.println(result.getFailureReport());
        List<String> details = result.getFailureReport().getDetails();
        assertEquals(1, details.size(), "one cycle expected, got " + result.getFailureReport());
        String cycle = details.get(0);
        assertTrue(cycle.startsWith("Cycle detected: "), cycle);
        assertTrue(
                cycle.contains("Slice spi") && cycle.contains("Slice core"), "the cycle must be spi ⇄ core: " + cycle);
        assertTrue(!cycle.contains("Slice redis"), cycle);
    }

    @Test
    void givenACyclePutBackBetweenSpiAndCore_whenTheLayerRuleRuns_thenItReportsOnlySpiToCore() {
        // The fixtures fill 3 of the 9 layers; the other layers' emptiness is not what this test is about.
        ArchRule layers = RuntimePackageRules.layersPointOneWay(FIXTURES).withOptionalLayers(true);

        assertEquals(
                Set.of("spi.FixtureContract -> core.FixtureEngine"), dependencies(layers.evaluate(FIXTURE_CLASSES)));
    }

    @Test
    void givenAProviderThatUsesLogback_whenTheBackendRuleRuns_thenItReportsThatProviderOnly() {
        EvaluationResult result =
                RuntimePackageRules.onlyTheLoggingSetUpSeesTheBackend(FIXTURES).evaluate(FIXTURE_CLASSES);

        assertEquals(Set.of("redis.FixtureProvider -> ch.qos.logback.classic.Level"), dependencies(result));
    }

    @Test
    void givenAContractThatNamesJackson_whenTheJacksonRuleRuns_thenItReportsThatContract_andNotTheSchedule() {
        EvaluationResult result = RuntimePackageRules.providerContractDoesNotDependOnJackson(FIXTURES)
                .evaluate(FIXTURE_CLASSES);

        assertEquals(Set.of("spi.FixtureContract -> com.fasterxml.jackson.databind.JsonNode"), dependencies(result));
    }

    @Test
    void givenAContractThatNamesJackson_whenTheSignatureRuleRuns_thenItReportsThatMethod_andNotThePrivateUse() {
        EvaluationResult result =
                RuntimePackageRules.spiSignaturesNameNoJacksonType(FIXTURES).evaluate(FIXTURE_CLASSES);

        System.out.println(result.getFailureReport());
        assertEquals(
                List.of(FIXTURES + ".spi.FixtureContract.payload() exposes com.fasterxml.jackson.databind.JsonNode"),
                result.getFailureReport().getDetails());
    }

    private static Set<String> dependencies(EvaluationResult result) {
        return ArchViolations.dependencies(result, FIXTURES);
    }
}
