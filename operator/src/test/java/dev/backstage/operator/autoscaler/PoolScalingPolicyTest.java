package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.scaling.ScalingPolicy;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.QueueBacklog.PartitionBacklog;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolScalingPolicyTest {
    private static BackstageWorkerPool pool(AutoscalingSpec autoscaling, String... queues) {
        BackstageWorkerPool pool = BackstageFixtures.pool("ns", "p", "t", queues);
        pool.getSpec().setAutoscaling(autoscaling);
        return pool;
    }

    private static AutoscalingSpec on() {
        AutoscalingSpec spec = new AutoscalingSpec();
        spec.setEnabled(true);
        return spec;
    }

    @Test
    void givenOnlyEnabled_thenTheSchemaDefaultsApply_andConcurrencyComesFromThePool() {
        BackstageWorkerPool pool = pool(on(), "orders");
        ScalingPolicy policy = PoolScalingPolicy.of(pool, BackstageFixtures.redisTopology("ns", "t", "orders"), null);
        assertEquals(1, policy.minReplicas());
        assertEquals(10, policy.maxReplicas());
        assertEquals(10, policy.targetBacklogPerReplica());
        assertEquals(Duration.ofSeconds(60), policy.scaleDownWindow());
        assertNull(policy.targetDrain());
        assertNull(policy.partitionCap(), "Redis streams have no partitions");
        assertEquals(8, policy.concurrencyPerReplica());
        assertEquals(Duration.ofSeconds(5), PoolScalingPolicy.pollInterval(pool));
        assertEquals(Duration.ofSeconds(5), policy.pollInterval());
        assertEquals(Duration.ofSeconds(10), policy.podStartup());
        assertTrue(PoolScalingPolicy.autoscalingOn(pool));
    }

    @Test
    void givenEveryField_thenEachIsUsed() {
        AutoscalingSpec spec = on();
        spec.setMinReplicas(0);
        spec.setMaxReplicas(7);
        spec.setTargetBacklogPerReplica(25);
        spec.setTargetDrainTime("2m");
        spec.setScaleDownWindow("1m30s");
        spec.setPollInterval("500ms");
        spec.setPodStartupTime("45s");
        spec.setScaleUpLookahead("0s");
        spec.setScaleDownInterval("2m");
        BackstageWorkerPool pool = pool(spec, "orders");
        pool.getSpec().setConcurrency(null);
        ScalingPolicy policy = PoolScalingPolicy.of(pool, null, null);
        assertEquals(0, policy.minReplicas());
        assertEquals(7, policy.maxReplicas());
        assertEquals(25, policy.targetBacklogPerReplica());
        assertEquals(Duration.ofMinutes(2), policy.targetDrain());
        assertEquals(Duration.ofSeconds(90), policy.scaleDownWindow());
        assertEquals(50, policy.concurrencyPerReplica(), "the runtime's default concurrency");
        assertEquals(Duration.ofMillis(500), PoolScalingPolicy.pollInterval(pool));
        assertEquals(Duration.ofMillis(500), policy.pollInterval(), "the forecast looks one poll ahead");
        assertEquals(Duration.ofSeconds(45), policy.podStartup());
        assertEquals(Duration.ZERO, policy.scaleUpLookahead());
        assertEquals(Duration.ofMinutes(2), policy.scaleDownInterval());
    }

    @Test
    void givenAMeasuredStartup_thenItReplacesTheConfiguredOne_andWithoutOneTheConfiguredOneStays() {
        AutoscalingSpec spec = on();
        spec.setPodStartupTime("45s");
        BackstageWorkerPool pool = pool(spec, "orders");

        assertEquals(
                Duration.ofSeconds(12),
                PoolScalingPolicy.of(pool, null, null, Duration.ofSeconds(12)).podStartup());
        assertEquals(
                Duration.ofSeconds(45),
                PoolScalingPolicy.of(pool, null, null, null).podStartup());
    }

    @Test
    void givenNoAutoscalingBlock_thenOffAndTheDefaultPollInterval() {
        BackstageWorkerPool pool = pool(null, "orders");
        assertFalse(PoolScalingPolicy.autoscalingOn(pool));
        assertEquals(Duration.ofSeconds(5), PoolScalingPolicy.pollInterval(pool));
    }

    @Test
    void givenKafka_thenThePartitionsOfThePoolsTopicsTogetherCapIt_measuredOnesWinningOverDeclaredOnes() {
        BackstageTopology kafka = BackstageFixtures.redisTopology("ns", "t", "orders", "mails", "other");
        kafka.getSpec().setProvider(ProviderType.KAFKA);
        kafka.getSpec()
                .setQueues(List.of(
                        new QueueSpec("orders", 6, 1), new QueueSpec("mails", null, 1), new QueueSpec("other", 12, 1)));
        BackstageWorkerPool pool = pool(on(), "orders", "mails");

        assertEquals(7, PoolScalingPolicy.of(pool, kafka, null).partitionCap(), "6 declared + 1 by default");
        BacklogReport measured = new BacklogReport(
                Instant.EPOCH,
                List.of(
                        new QueueBacklog(
                                "orders",
                                0,
                                0,
                                0,
                                null,
                                List.of(
                                        new PartitionBacklog(0, 0, 0, 0),
                                        new PartitionBacklog(1, 0, 0, 0),
                                        new PartitionBacklog(2, 0, 0, 0)),
                                null),
                        new QueueBacklog("mails", 0, 0, 0, null, List.of(), "topic does not exist yet")));
        assertEquals(
                4,
                PoolScalingPolicy.of(pool, kafka, measured).partitionCap(),
                "3 measured for orders, mails not created yet: its declared 1");
    }

    @Test
    void givenAnAutoscaledPoolAtZeroReplicas_thenItsNextPollComesAfterTheZeroPollInterval() {
        AutoscalingSpec spec = on();
        spec.setMinReplicas(0);
        BackstageWorkerPool pool = pool(spec, "orders");
        assertEquals(Duration.ofSeconds(5), PoolScalingPolicy.nextPoll(pool), "no status yet: the poll interval");
        pool.setStatus(new dev.backstage.operator.model.BackstageWorkerPoolStatus());
        pool.getStatus().setDesiredReplicas(0);
        assertEquals(Duration.ofSeconds(1), PoolScalingPolicy.nextPoll(pool), "at zero: the default zeroPollInterval");
        spec.setZeroPollInterval("3s");
        assertEquals(Duration.ofSeconds(3), PoolScalingPolicy.nextPoll(pool));
        spec.setZeroPollInterval("30s");
        assertEquals(Duration.ofSeconds(5), PoolScalingPolicy.nextPoll(pool), "never longer than pollInterval");
        pool.getStatus().setDesiredReplicas(1);
        assertEquals(Duration.ofSeconds(5), PoolScalingPolicy.nextPoll(pool), "running replicas: the poll interval");
    }
}
