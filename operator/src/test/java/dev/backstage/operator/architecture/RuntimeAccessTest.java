package dev.backstage.operator.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator sees the runtime through its provider SPI only (backlog probes, declarers, provider settings),
 * plus three shared contracts that have one home each: the runtime.yaml model it renders
 * ({@code runtime.config}), the one probe HTTP server ({@code runtime.main.ProbeServer}) and the mains' logging
 * set-up ({@code runtime.logging}: the operator's own log and the workers' {@code BACKSTAGE_LOG_*}). No worker internals
 * ({@code api}, {@code core}, a provider's classes) leak into it.
 */
class RuntimeAccessTest {
    private static final JavaClasses OPERATOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.backstage.operator");

    @Test
    void givenTheOperatorClasses_thenTheySeeOnlyTheSpiOfTheRuntime() {
        noClasses()
                .that()
                .resideInAPackage("dev.backstage.operator..")
                .should()
                .dependOnClassesThat(com.tngtech.archunit.base.DescribedPredicate.describe(
                        "runtime classes outside spi, config, logging and main.ProbeServer",
                        (com.tngtech.archunit.core.domain.JavaClass c) ->
                                c.getPackageName().startsWith("dev.backstage.runtime")
                                        && !c.getPackageName().startsWith("dev.backstage.runtime.spi")
                                        && !c.getPackageName().startsWith("dev.backstage.runtime.config")
                                        && !c.getPackageName().startsWith("dev.backstage.runtime.logging")
                                        && !c.getName().startsWith("dev.backstage.runtime.main.ProbeServer")))
                .check(OPERATOR);
    }
}
