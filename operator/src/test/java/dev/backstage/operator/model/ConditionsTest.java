package dev.backstage.operator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
    private static final Instant T0 = Instant.parse("2025-01-01T10:00:00.123Z");
    private static final Instant T1 = Instant.parse("2025-01-01T10:05:00Z");

    @Test
    void givenNoCondition_whenSet_thenAddedWithTransitionTimeInWholeSeconds() {
        List<Condition> conditions = new ArrayList<>();
        assertTrue(Conditions.set(conditions, "Ready", Conditions.FALSE, "TopologyNotFound", "m", 1L, T0));
        assertEquals(1, conditions.size());
        assertEquals("2025-01-01T10:00:00Z", conditions.get(0).getLastTransitionTime());
    }

    @Test
    void givenSameStatus_whenReasonChanges_thenTransitionTimeIsKept() {
        List<Condition> conditions = new ArrayList<>();
        Conditions.set(conditions, "Ready", Conditions.FALSE, "TopologyNotFound", "a", 1L, T0);
        assertTrue(Conditions.set(conditions, "Ready", Conditions.FALSE, "TopologyNotReady", "b", 2L, T1));
        Condition c = conditions.get(0);
        assertEquals("TopologyNotReady", c.getReason());
        assertEquals("b", c.getMessage());
        assertEquals(2L, c.getObservedGeneration());
        assertEquals("2025-01-01T10:00:00Z", c.getLastTransitionTime());
    }

    @Test
    void givenStatusChange_thenTransitionTimeMoves() {
        List<Condition> conditions = new ArrayList<>();
        Conditions.set(conditions, "Ready", Conditions.FALSE, "X", "a", 1L, T0);
        Conditions.set(conditions, "Ready", Conditions.TRUE, "Y", "b", 1L, T1);
        assertEquals("2025-01-01T10:05:00Z", conditions.get(0).getLastTransitionTime());
        assertTrue(Conditions.isTrue(conditions, "Ready"));
    }

    @Test
    void givenIdenticalSet_thenNothingChanges() {
        List<Condition> conditions = new ArrayList<>();
        Conditions.set(conditions, "Ready", Conditions.TRUE, "R", "m", 1L, T0);
        assertFalse(Conditions.set(conditions, "Ready", Conditions.TRUE, "R", "m", 1L, T1));
        assertEquals("2025-01-01T10:00:00Z", conditions.get(0).getLastTransitionTime());
    }

    @Test
    void givenConditionsOfTwoTypes_whenOneIsSet_thenTheOtherIsLeftAlone() {
        List<Condition> conditions = new ArrayList<>();
        Conditions.set(conditions, "BacklogAvailable", Conditions.TRUE, "Measured", "m", 1L, T0);
        Conditions.set(conditions, "Ready", Conditions.FALSE, "X", "m", 1L, T1);
        assertEquals(2, conditions.size());
        assertEquals(
                "Measured",
                Conditions.find(conditions, "BacklogAvailable").orElseThrow().getReason());
        assertFalse(Conditions.isTrue(conditions, "Ready"));
        assertFalse(Conditions.isTrue(conditions, "Missing"));
    }
}
