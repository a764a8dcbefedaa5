package dev.backstage.runtime.architecture;

import static dev.backstage.runtime.architecture.RuntimePackageRules.RUNTIME_ROOT;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The runtime's package graph is one-way: the rules of {@link RuntimePackageRules} (the graph is described there),
 * checked on the compiled main classes, so a new import that points the wrong way fails the build.
 * {@link PackageRulesCatchViolationsTest} shows each rule failing on fixtures that break it.
 */
class PackageGraphTest {
    private static final JavaClasses RUNTIME = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(RUNTIME_ROOT);

    @Test
    void givenTheRuntimeClasses_thenTheirPackagesAreFreeOfCycles() {
        RuntimePackageRules.packagesFreeOfCycles(RUNTIME_ROOT).check(RUNTIME);
    }

    @Test
    void givenThePackageLayers_thenTheirDependenciesPointOneWay() {
        RuntimePackageRules.layersPointOneWay(RUNTIME_ROOT).check(RUNTIME);
    }

    @Test
    void givenTheRuntimeClasses_thenOnlyTheLoggingSetUpSeesTheBackend() {
        RuntimePackageRules.onlyTheLoggingSetUpSeesTheBackend(RUNTIME_ROOT).check(RUNTIME);
    }

    @Test
    void givenTheProviderContract_thenItDoesNotDependOnJackson() {
        RuntimePackageRules.providerContractDoesNotDependOnJackson(RUNTIME_ROOT).check(RUNTIME);
    }

    @Test
    void givenTheSpiSignatures_thenNoneMentionsJackson() {
        RuntimePackageRules.spiSignaturesNameNoJacksonType(RUNTIME_ROOT).check(RUNTIME);
    }
}
