package dev.backstage.operator.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which Deployment updates reconcile the pool: the deployment controller's three writes of a new Deployment among them. */
class DeploymentChangeFilterTest {
    private final DeploymentChangeFilter filter = new DeploymentChangeFilter();

    /** A Deployment at zero replicas the controller has observed, as after its first status write. */
    private static Deployment observed() {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName("workers")
                .withNamespace("ns")
                .withGeneration(1L)
                .addToLabels("app.kubernetes.io/managed-by", "backstage-operator")
                .endMetadata()
                .withNewStatus()
                .withObservedGeneration(1L)
                .withReplicas(0)
                .endStatus()
                .build();
    }

    static Stream<Arguments> updates() {
        return Stream.<Arguments>of(
                change(
                        "the controller's first status write (observedGeneration)",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .withObservedGeneration(null)
                                .endStatus()
                                .build()),
                change(
                        "Available and Progressing conditions only",
                        false,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .addToConditions(new DeploymentConditionBuilder()
                                        .withType("Available")
                                        .withStatus("True")
                                        .withReason("MinimumReplicasAvailable")
                                        .build())
                                .endStatus()
                                .build()),
                change(
                        "a pod became ready",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .withReadyReplicas(1)
                                .endStatus()
                                .build()),
                change(
                        "a replica updated",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .withUpdatedReplicas(1)
                                .endStatus()
                                .build()),
                change(
                        "a replica available",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .withAvailableReplicas(1)
                                .endStatus()
                                .build()),
                change(
                        "a replica added",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editStatus()
                                .withReplicas(1)
                                .endStatus()
                                .build()),
                change(
                        "the spec edited by hand (new generation)",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .withGeneration(2L)
                                .endMetadata()
                                .build()),
                change(
                        "a label edited by hand",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .addToLabels("team", "x")
                                .endMetadata()
                                .build()),
                change(
                        "an annotation edited by hand",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .addToAnnotations("note", "x")
                                .endMetadata()
                                .build()),
                change(
                        "its owner references changed",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .addNewOwnerReference()
                                .withName("workers")
                                .withKind("BackstageWorkerPool")
                                .endOwnerReference()
                                .endMetadata()
                                .build()),
                change(
                        "marked for deletion",
                        true,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .withDeletionTimestamp("2026-12-02T10:00:00Z")
                                .endMetadata()
                                .build()),
                change(
                        "only the resourceVersion",
                        false,
                        d -> new DeploymentBuilder(d)
                                .editMetadata()
                                .withResourceVersion("42")
                                .endMetadata()
                                .build()));
    }

    /** {@code before} is {@link #observed()} changed by {@code edit}; the update goes from it to {@link #observed()}. */
    private static Arguments change(String what, boolean reconciles, UnaryOperator<Deployment> edit) {
        return Arguments.of(what, reconciles, edit);
    }

    @ParameterizedTest(name = "{0} -> reconcile {1}")
    @MethodSource("updates")
    void givenADeploymentUpdate_thenThePoolIsReconciledAsTabled(
            String what, boolean reconciles, UnaryOperator<Deployment> edit) {
        Deployment before = edit.apply(observed());
        assertEquals(reconciles, filter.accept(observed(), before), what);
        assertEquals(reconciles, filter.accept(before, observed()), what + " (the other way)");
    }
}
