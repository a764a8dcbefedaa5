package dev.backstage.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private final RetryPolicy policy = new RetryPolicy(5, Backoff.fixed(Duration.ofMillis(100)));

    @Test
    void givenWorkerMaxFive_whenDeliveryFiveFails_thenRetryAndWhenSixFailsThenDeadLetter() {
        assertInstanceOf(RetryPolicy.Retry.class, policy.afterFailure(5, JobMeta.NONE, TaskOptions.defaults()));
        assertInstanceOf(RetryPolicy.DeadLetter.class, policy.afterFailure(6, JobMeta.NONE, TaskOptions.defaults()));
    }

    @Test
    void givenJobAttempts_thenTheyWinOverTaskAndWorker() {
        JobMeta meta = new JobMeta(1, null, null);
        TaskOptions task = TaskOptions.defaults().withMaxDeliveries(9);
        assertInstanceOf(RetryPolicy.Retry.class, policy.afterFailure(1, meta, task));
        assertInstanceOf(RetryPolicy.DeadLetter.class, policy.afterFailure(2, meta, task));
    }

    @Test
    void givenTaskMax_thenItWinsOverWorker() {
        TaskOptions task = TaskOptions.defaults().withMaxDeliveries(2);
        assertInstanceOf(RetryPolicy.DeadLetter.class, policy.afterFailure(3, JobMeta.NONE, task));
    }

    @Test
    void givenZeroAttemptsOnTheWire_thenTheyCountAsAbsent() {
        assertEquals(5, policy.maxFor(new JobMeta(0, null, null), TaskOptions.defaults()));
    }

    @Test
    void givenJobBackoff_thenItWinsOverTaskAndWorker() {
        JobMeta meta = new JobMeta(null, Backoff.fixed(Duration.ofMillis(7)), null);
        TaskOptions task = TaskOptions.defaults().withBackoff(Backoff.fixed(Duration.ofMillis(9)));
        var decision = (RetryPolicy.Retry) policy.afterFailure(1, meta, task);
        assertEquals(Duration.ofMillis(7), decision.delay());
        var taskDecision = (RetryPolicy.Retry) policy.afterFailure(1, JobMeta.NONE, task);
        assertEquals(Duration.ofMillis(9), taskDecision.delay());
    }

    @Test
    void givenADeliveryPastItsAllowanceThatNeverSettled_thenItIsNotRunAgain() {
        assertFalse(policy.exhaustedBeforeRun(6, JobMeta.NONE, TaskOptions.defaults()));
        assertTrue(policy.exhaustedBeforeRun(7, JobMeta.NONE, TaskOptions.defaults()));
    }
}
