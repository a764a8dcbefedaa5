package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.backstage.operator.scaling.PodStartupTimes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a pod's creation and Ready times are read (the statistic itself is {@code PodStartupTimesTest}). */
class PodStartupMeterTest {
    private static Pod pod(String created, String readyStatus, String readySince) {
        PodBuilder builder = new PodBuilder().withNewMetadata().withName("p").withCreationTimestamp(created).endMetadata();
        if (readyStatus != null) {
            builder.withNewStatus()
                    .addNewCondition().withType("PodScheduled").withStatus("True")
                    .withLastTransitionTime("2025-01-01T00:00:01Z").endCondition()
                    .addNewCondition().withType("Ready").withStatus(readyStatus).withLastTransitionTime(readySince)
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
}
