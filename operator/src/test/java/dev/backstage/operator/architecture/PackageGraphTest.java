package dev.backstage.operator.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator's package graph is one-way. From the bottom: {@code model} (the CRDs' Java types), {@code scaling}
 * (the pure scaling decision), {@code status} and {@code events} (the API writers every controller shares) and
 * {@code polling} (the one per-resource polling loop under the backlog monitors and the schedule firing), then
 * {@code workload} (facts about a pool's pods: replica counts, resources, the container contract) and
 * {@code broker} (broker access: connection Secrets, TLS files, scrubbing, failure reasons, backlog probes), then
 * the controllers ({@code autoscaler}, {@code schedule}, {@code pool}, {@code topology}), then {@code admission},
 * {@code certificates} (the webhook's own serving certificate) and {@code console} (the web console: reads the
 * model, uses broker access and the Event writer), then {@code main}. Checked on the compiled classes, so an import
 * that points the wrong way fails the build.
 */
class PackageGraphTest {
    static final JavaClasses OPERATOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.backstage.operator");

    @Test
    void givenTheOperatorClasses_thenTheirPackagesAreFreeOfCycles() {
        slices().matching("dev.backstage.operator.(*)..")
                .should()
                .beFreeOfCycles()
                .check(OPERATOR);
    }

    @Test
    void givenThePackageLayers_thenTheirDependenciesPointOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("model")
                .definedBy("dev.backstage.operator.model..")
                .layer("scaling")
                .definedBy("dev.backstage.operator.scaling..")
                .layer("writers")
                .definedBy("dev.backstage.operator.status..", "dev.backstage.operator.events..")
                .layer("polling")
                .definedBy("dev.backstage.operator.polling..")
                .layer("workload")
                .definedBy("dev.backstage.operator.workload..")
                .layer("broker")
                .definedBy("dev.backstage.operator.broker..")
                .layer("autoscaler")
                .definedBy("dev.backstage.operator.autoscaler..")
                .layer("schedule")
                .definedBy("dev.backstage.operator.schedule..")
                .layer("pool")
                .definedBy("dev.backstage.operator.pool..")
                .layer("topology")
                .definedBy("dev.backstage.operator.topology..")
                .layer("admission")
                .definedBy("dev.backstage.operator.admission..")
                .layer("certificates")
                .definedBy("dev.backstage.operator.certificates..")
                .layer("console")
                .definedBy("dev.backstage.operator.console..")
                .layer("main")
                .definedBy("dev.backstage.operator.main..")
                .whereLayer("main")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("console")
                .mayOnlyBeAccessedByLayers("main")
                .whereLayer("admission")
                .mayOnlyBeAccessedByLayers("main")
                .whereLayer("certificates")
                .mayOnlyBeAccessedByLayers("main")
                .whereLayer("topology")
                .mayOnlyBeAccessedByLayers("main")
                .whereLayer("pool")
                .mayOnlyBeAccessedByLayers("main")
                .whereLayer("schedule")
                .mayOnlyBeAccessedByLayers("topology", "admission", "main")
                .whereLayer("autoscaler")
                .mayOnlyBeAccessedByLayers("pool", "main")
                .whereLayer("broker")
                .mayOnlyBeAccessedByLayers("autoscaler", "schedule", "pool", "topology", "console", "main")
                .whereLayer("workload")
                .mayOnlyBeAccessedByLayers("broker", "autoscaler", "schedule", "pool", "topology", "main")
                .whereLayer("writers")
                .mayOnlyBeAccessedByLayers("autoscaler", "schedule", "pool", "topology", "admission", "console", "main")
                .whereLayer("polling")
                .mayOnlyBeAccessedByLayers("autoscaler", "schedule")
                .whereLayer("scaling")
                .mayOnlyBeAccessedByLayers("autoscaler", "pool", "main")
                .check(OPERATOR);
    }

    /** The scaling decision is a pure function of samples and settings: table-tested, no I/O, no clock of its own. */
    @Test
    void givenTheScalingPackage_thenItDoesNoIo() {
        noClasses()
                .that()
                .resideInAPackage("dev.backstage.operator.scaling..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.fabric8..",
                        "io.javaoperatorsdk..",
                        "java.io..",
                        "java.nio..",
                        "java.net..",
                        "java.util.concurrent..",
                        "java.lang.management..",
                        "io.lettuce..",
                        "com.rabbitmq..",
                        "org.apache.kafka..",
                        "org.slf4j..")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.lang.Thread")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.lang.System")
                .because("scaling is the pure decision: samples in, replicas out; I/O lives in autoscaler")
                .check(OPERATOR);
    }

    /** The CRD types describe resources; they do not reach the API server or a broker. */
    @Test
    void givenTheModelPackage_thenItDoesNoIo() {
        noClasses()
                .that()
                .resideInAPackage("dev.backstage.operator.model..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.fabric8.kubernetes.client.dsl..",
                        "io.fabric8.kubernetes.client.informers..",
                        "io.javaoperatorsdk..",
                        "java.net..",
                        "java.nio.file..",
                        "io.lettuce..",
                        "com.rabbitmq..",
                        "org.apache.kafka..")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("io.fabric8.kubernetes.client.KubernetesClient")
                .because("the model is data (the custom resources extend fabric8's CustomResource, nothing more)")
                .check(OPERATOR);
    }
}
