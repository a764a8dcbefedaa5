package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScalingPolicyTest {

    @ParameterizedTest(name = "{0} is rejected")
    @CsvSource(delimiter = '|', textBlock = """
        # case                        | policy       | message starts with
        negative minReplicas          | min=-1       | minReplicas
        maxReplicas below min         | min=5 max=4  | maxReplicas
        maxReplicas zero              | max=0        | maxReplicas
        zero backlog target           | T=0          | targetBacklogPerReplica
        zero drain target             | drain=0      | targetDrain
        negative window               | window=-1    | scaleDownWindow
        tolerance of 100 %            | tol=1        | tolerance
        negative tolerance            | tol=-0.1     | tolerance
        zero partitions               | partitions=0 | partitionCap
        zero rate window              | rate=0       | rateWindow
        negative pod start-up         | startup=-1   | podStartup
        zero poll interval            | poll=0       | pollInterval
        """)
    void givenAnInvalidSetting_whenBuilt_thenRejectedNamingTheField(String name, String policy, String field) {
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> SampleScript.policy(policy));
        assertTrue(error.getMessage().startsWith(field), error.getMessage());
    }

    @Test
    void givenDefaults_thenSixtySecondWindowTenPercentToleranceAndRetentionCoveringBothWindows() {
        ScalingPolicy policy =
                ScalingPolicy.builder().rateWindow(Duration.ofSeconds(120)).build();

        assertEquals(Duration.ofSeconds(60), policy.scaleDownWindow());
        assertEquals(0.10, policy.tolerance());
        assertFalse(policy.hasDrainTarget());
        assertEquals(Duration.ofSeconds(600), policy.historyRetention());
        assertEquals(Duration.ofSeconds(180), policy.settleTime());
        assertEquals(Duration.ofSeconds(15), policy.forecastHorizon(), "10 s start-up + one 5 s poll");
    }

    @Test
    void givenPartitions_thenTheUpperBoundIsTheLowerOfMaxAndPartitionsButNeverBelowMin() {
        assertEquals(12, SampleScript.policy("max=50 partitions=12").upperBound());
        assertTrue(SampleScript.policy("max=50 partitions=12").cappedByPartitions());
        assertEquals(8, SampleScript.policy("max=8 partitions=12").upperBound());
        assertFalse(SampleScript.policy("max=8 partitions=12").cappedByPartitions());
        assertEquals(5, SampleScript.policy("min=5 max=10 partitions=3").upperBound());
    }
}
