package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.scaling.PodStartupTimes;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.MockKubernetes;
import dev.backstage.operator.workload.PoolResources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a pod's creation and Ready times are read (the statistic itself is {@code PodStartupTimesTest}). */
class PodStartupMeterTest {
    private static Pod pod(String created, String readyStatus, String readySince) {
        PodBuilder builder = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withCreationTimestamp(created)
                .endMetadata();
        if (readyStatus != null) {
            builder.withNewStatus()
                    .addNewCondition()
                    .withType("PodScheduled")
                    .withStatus("True")
                    .withLastTransitionTime("2025-01-01T00:00:01Z")
                    .endCondition()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(readyStatus)
                    .withLastTransitionTime(readySince)
                    .endCondition()
                    .endStatus();
        }
        return builder.build();
    }

    @Test
    void givenPods_thenCreationAndTheReadyConditionsTransitionAreRead_andNotReadyOrUnpersistedPodsAreNotCountedReady() {
        List<PodStartupTimes.PodStart> starts = PodStartupMeter.starts(List.of(
                pod("2025-01-01T00:00:00Z", "True", "2025-01-01T00:00:12Z"),
                pod("2025-01-01T00:00:00Z", "False", "2025-01-01T00:00:03Z"),
                pod("2025-01-01T00:00:00Z", null, null),
                pod(null, "True", "2025-01-01T00:00:12Z")));

        assertEquals(3, starts.size(), "a pod without a creation time is skipped");
        assertEquals(Instant.parse("2025-01-01T00:00:12Z"), starts.get(0).ready());
        assertNull(starts.get(1).ready(), "Ready=False is not ready");
        assertNull(starts.get(2).ready(), "no status yet");
    }

    @Test
    void givenAPoolWhoseStatusCountsNoPod_thenItsPodsAreNotListed_otherwiseTheyAre() {
        try (MockKubernetes mock = MockKubernetes.start()) {
            BackstageWorkerPool pool = BackstageFixtures.pool("shop", "workers", "orders", "orders");
            pool.getMetadata().setUid("uid-1");
            for (int i = 0; i < PodStartupTimes.MIN_PODS; i++) {
                // The mock stamps its own creationTimestamp (now): Ready a little after it.
                Pod pod = pod(
                        "2025-01-01T00:00:00Z",
                        "True",
                        Instant.now().plusSeconds(12).toString());
                pod.getMetadata().setName("workers-" + i);
                pod.getMetadata().setNamespace("shop");
                pod.getMetadata().setLabels(PoolResources.selector(pool));
                mock.client().resource(pod).create();
            }
            BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
            status.setReplicas(0);
            status.setReadyReplicas(0);
            pool.setStatus(status);

            assertTrue(
                    new PodStartupMeter(mock.client(), Clock.systemUTC(), Duration.ofMinutes(1))
                            .startup(pool)
                            .isEmpty(),
                    "status says no pod: not listed (the pods on the server are not seen)");

            status.setReplicas(PodStartupTimes.MIN_PODS);
            status.setReadyReplicas(PodStartupTimes.MIN_PODS);
            assertTrue(
                    new PodStartupMeter(mock.client(), Clock.systemUTC(), Duration.ofMinutes(1))
                            .startup(pool)
                            .isPresent(),
                    "status counts pods: listed and measured");
        }
    }
}
