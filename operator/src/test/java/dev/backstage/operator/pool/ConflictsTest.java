package dev.backstage.operator.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConflictsTest {
    private static KubernetesClientException status(int code) {
        return new KubernetesClientException("HTTP " + code, code, null);
    }

    @Test
    void aConflictAnywhereInTheCauseChainIsAConflict() {
        assertTrue(Conflicts.isConflict(status(409)));
        assertTrue(Conflicts.isConflict(new RuntimeException("wrapped", status(409))));
    }

    @Test
    void aggregatedFailuresAreConflictsOnlyWhenAllOfThemAre() {
        assertTrue(Conflicts.isConflict(new AggregatedOperatorException("x", Map.of("deployment", status(409)))));
        assertFalse(Conflicts.isConflict(new AggregatedOperatorException("x",
                Map.of("deployment", status(409), "runtime-config", status(403)))));
    }

    @Test
    void otherFailuresAreNot() {
        assertFalse(Conflicts.isConflict(status(422)));
        assertFalse(Conflicts.isConflict(new IllegalArgumentException("bad duration")));
    }
}
