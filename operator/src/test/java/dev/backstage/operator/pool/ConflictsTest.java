package dev.backstage.operator.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConflictsTest {
    private static KubernetesClientException status(int code) {
        return status(code, code == 409 ? "Conflict" : "Invalid", "failed");
    }

    private static KubernetesClientException status(int code, String reason, String message) {
        return new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder()
                .withCode(code)
                .withReason(reason)
                .withMessage(message)
                .build());
    }

    @Test
    void givenAConflictAnywhereInTheCauseChain_thenItIsAConflict() {
        assertTrue(Conflicts.isConflict(status(409)));
        assertTrue(Conflicts.isConflict(new RuntimeException("wrapped", status(409))));
    }

    @Test
    void givenAggregatedFailures_thenTheyAreAConflictOnlyWhenAllOfThemAre() {
        assertTrue(Conflicts.isConflict(new AggregatedOperatorException("x", Map.of("deployment", status(409)))));
        assertTrue(
                Conflicts.isConflict(new io.javaoperatorsdk.operator.OperatorException(
                        new AggregatedOperatorException("x", Map.of("deployment", status(409))))),
                "as JOSDK wraps it");
        assertFalse(Conflicts.isConflict(new AggregatedOperatorException(
                "x", Map.of("deployment", status(409), "runtime-config", status(403)))));
    }

    @Test
    void givenTheMocksConflict_thenItIsRecognisedByItsMessage() {
        assertTrue(
                Conflicts.isConflict(
                        status(
                                409,
                                "Invalid",
                                "Operation cannot be fulfilled on Deployment \"w\":"
                                        + " the object has been modified; please apply your changes to the latest version and try again")));
    }

    @Test
    void givenAlreadyExists_thenItIsNotARaceButAFailureToReport() {
        assertFalse(Conflicts.isConflict(status(409, "AlreadyExists", "deployments.apps \"workers\" already exists")));
        assertFalse(Conflicts.isConflict(status(409, "Invalid", "Deployment 'workers' already exists")));
    }

    @Test
    void givenOtherFailures_thenTheyAreNotConflicts() {
        assertFalse(Conflicts.isConflict(status(422)));
        assertFalse(Conflicts.isConflict(new IllegalArgumentException("bad duration")));
    }
}
