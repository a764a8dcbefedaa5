package dev.backstage.runtime.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The runtime's package graph is one-way: {@code spi} ← {@code api} ← {@code core} ← providers; the providers do
 * not see each other; {@code config} (the runtime.yaml model) sees only {@code spi}; the mains and the CLI sit on
 * top. Checked on the compiled classes, so a new import that points the wrong way fails the build.
 */
class PackageGraphTest {
    private static final JavaClasses RUNTIME = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.backstage.runtime");

    @Test
    void layersPointOneWay() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("spi").definedBy("dev.backstage.runtime.spi..")
                .layer("api").definedBy("dev.backstage.runtime.api..")
                .layer("core").definedBy("dev.backstage.runtime.core..")
                .layer("redis").definedBy("dev.backstage.runtime.redis..")
                .layer("rabbitmq").definedBy("dev.backstage.runtime.rabbitmq..")
                .layer("kafka").definedBy("dev.backstage.runtime.kafka..")
                .layer("config").definedBy("dev.backstage.runtime.config..")
                .layer("logging").definedBy("dev.backstage.runtime.logging..")
                .layer("mains").definedBy("dev.backstage.runtime.main..", "dev.backstage.runtime.cli..")
                .whereLayer("mains").mayNotBeAccessedByAnyLayer()
                .whereLayer("redis").mayOnlyBeAccessedByLayers("mains")
                .whereLayer("rabbitmq").mayOnlyBeAccessedByLayers("mains")
                .whereLayer("kafka").mayOnlyBeAccessedByLayers("mains")
                .whereLayer("core").mayOnlyBeAccessedByLayers("redis", "rabbitmq", "kafka", "mains")
                .whereLayer("api").mayOnlyBeAccessedByLayers("core", "redis", "rabbitmq", "kafka", "mains")
                .whereLayer("config").mayOnlyBeAccessedByLayers("mains")
                .whereLayer("logging").mayOnlyBeAccessedByLayers("mains")
                .check(RUNTIME);
    }

    /** The library logs through slf4j-api; the backend (logback, optional) is configured by the mains' set-up only. */
    @Test
    void onlyTheLoggingSetUpSeesTheBackend() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses()
                .that().resideOutsideOfPackage("dev.backstage.runtime.logging..")
                .should().dependOnClassesThat().resideInAPackage("ch.qos.logback..")
                .check(RUNTIME);
    }
}
