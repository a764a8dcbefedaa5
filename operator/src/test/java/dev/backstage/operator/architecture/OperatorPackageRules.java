package dev.backstage.operator.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

/**
 * The operator's package rules, built for a root package: {@link PackageGraphTest} checks them on the operator's
 * main classes ({@link #OPERATOR_ROOT}) and {@link PackageRulesCatchViolationsTest} on test fixtures that break them
 * on purpose, so the rules the build relies on are shown to fail when a cycle or an I/O import is put back.
 *
 * <p>The layers, from the bottom: {@code model} (the CRDs' Java types), {@code scaling} (the pure scaling decision),
 * {@code status} and {@code events} (the API writers every controller shares) and {@code polling} (the one
 * per-resource polling loop under the backlog monitors and the schedule firing), then {@code workload} (facts about a
 * pool's pods: replica counts, resources, the container contract) and {@code broker} (broker access: connection
 * Secrets, TLS files, scrubbing, failure reasons, backlog probes), then the controllers ({@code autoscaler},
 * {@code schedule}, {@code pool}, {@code topology}), then {@code admission}, {@code certificates} (the webhook's own
 * serving certificate) and {@code console} (the web console: reads the model, uses broker access and the Event
 * writer), then {@code main}.
 */
final class OperatorPackageRules {
    static final String OPERATOR_ROOT = "dev.backstage.operator";

    private OperatorPackageRules() {}

    /** No two top-level packages under {@code root} import each other, directly or through others. */
    static ArchRule packagesFreeOfCycles(String root) {
        return slices().matching(root + ".(*)..").should().beFreeOfCycles();
    }

    /** The layers above, each seen only by the layers named as its users. */
    static LayeredArchitecture layersPointOneWay(String root) {
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("model")
                .definedBy(root + ".model..")
                .layer("scaling")
                .definedBy(root + ".scaling..")
                .layer("writers")
                .definedBy(root + ".status..", root + ".events..")
                .layer("polling")
                .definedBy(root + ".polling..")
                .layer("workload")
                .definedBy(root + ".workload..")
                .layer("broker")
                .definedBy(root + ".broker..")
                .layer("autoscaler")
                .definedBy(root + ".autoscaler..")
                .layer("schedule")
                .definedBy(root + ".schedule..")
                .layer("pool")
                .definedBy(root + ".pool..")
                .layer("topology")
                .definedBy(root + ".topology..")
                .layer("admission")
                .definedBy(root + ".admission..")
                .layer("certificates")
                .definedBy(root + ".certificates..")
                .layer("console")
                .definedBy(root + ".console..")
                .layer("main")
                .definedBy(root + ".main..")
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
                .mayOnlyBeAccessedByLayers("autoscaler", "pool", "main");
    }

    /** The scaling decision is a pure function of samples and settings: table-tested, no I/O, no clock of its own. */
    static ArchRule scalingDoesNoIo(String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + ".scaling..")
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
                .because("scaling is the pure decision: samples in, replicas out; I/O lives in autoscaler");
    }

    /** The CRD types describe resources; they do not reach the API server or a broker. */
    static ArchRule modelDoesNoIo(String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + ".model..")
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
                .because("the model is data (the custom resources extend fabric8's CustomResource, nothing more)");
    }
}
