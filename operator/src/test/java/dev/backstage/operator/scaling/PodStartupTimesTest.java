package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Measured start-up as a table. Pods are written {@code CREATED>READY} in seconds ({@code CREATED>-}: not Ready);
 * the expected figure is the median in seconds, or {@code -} while too few pods qualify.
 */
class PodStartupTimesTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                  | pods                                    | startup s | pods used
        three ready pods: their median                          | 0>12 0>10 5>16                          | 11.0      | 3
        two pods are too few: the configured value stays        | 0>12 0>10                               | -         | -
        pods not ready yet do not count                         | 0>12 0>10 5>- 6>-                       | -         | -
        one slow pod (image pull) does not move the median      | 0>10 0>11 0>12 0>300                    | 11.5      | 4
        a readiness flip long after creation is no start-up     | 0>10 0>11 0>12 0>3600                   | 11.0      | 3
        only the newest twenty pods count                       | 0>60 0>60 0>60 0>60 0>60 100>110 101>111 102>112 103>113 104>114 105>115 106>116 107>117 108>118 109>119 110>120 111>121 112>122 113>123 114>124 115>125 116>126 117>127 118>128 119>129 | 10.0 | 20
        a Ready time before creation (clock skew) is left out   | 10>5 0>10 0>11 0>12                     | 11.0      | 3
        """)
    void givenPodStarts_whenMeasured_thenTheMedianOfRecentPodsIsTheStartupTime(
            String name, String pods, Double startupSeconds, Integer used) {
        List<PodStartupTimes.PodStart> starts = new ArrayList<>();
        for (String pod : pods.trim().split("\\s+")) {
            String[] parts = pod.split(">");
            Instant created = T0.plusSeconds(Long.parseLong(parts[0]));
            Instant ready = parts[1].equals("-") ? null : T0.plusSeconds(Long.parseLong(parts[1]));
            starts.add(new PodStartupTimes.PodStart(created, ready));
        }

        var measured = PodStartupTimes.measure(starts);

        assertEquals(
                startupSeconds,
                measured.map(m -> m.startup().toMillis() / 1000.0).orElse(null),
                name);
        assertEquals(used, measured.map(PodStartupTimes.Measured::pods).orElse(null), name);
    }
}
