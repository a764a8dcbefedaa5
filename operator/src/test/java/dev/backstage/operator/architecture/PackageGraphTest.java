package dev.backstage.operator.architecture;

import static dev.backstage.operator.architecture.OperatorPackageRules.OPERATOR_ROOT;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator's package graph is one-way: the rules of {@link OperatorPackageRules} (the layers are listed there),
 * checked on the compiled main classes, so an import that points the wrong way fails the build.
 * {@link PackageRulesCatchViolationsTest} shows each rule failing on fixtures that break it.
 */
class PackageGraphTest {
    static final JavaClasses OPERATOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(OPERATOR_ROOT);

    @Test
    void givenTheOperatorClasses_thenTheirPackagesAreFreeOfCycles() {
        OperatorPackageRules.packagesFreeOfCycles(OPERATOR_ROOT).check(OPERATOR);
    }

    @Test
    void givenThePackageLayers_thenTheirDependenciesPointOneWay() {
        OperatorPackageRules.layersPointOneWay(OPERATOR_ROOT).check(OPERATOR);
    }

    @Test
    void givenTheScalingPackage_thenItDoesNoIo() {
        OperatorPackageRules.scalingDoesNoIo(OPERATOR_ROOT).check(OPERATOR);
    }

    @Test
    void givenTheModelPackage_thenItDoesNoIo() {
        OperatorPackageRules.modelDoesNoIo(OPERATOR_ROOT).check(OPERATOR);
    }
}
