package dev.backstage.runtime.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void givenGoStyleDurations_whenParsed_thenTheirLengthIsRead() {
        assertEquals(Duration.ofMillis(500), Durations.parse("f", "500ms"));
        assertEquals(Duration.ofSeconds(30), Durations.parse("f", "30s"));
        assertEquals(Duration.ofMinutes(5), Durations.parse("f", "5m"));
        assertEquals(Duration.ofMinutes(90), Durations.parse("f", "1h30m"));
        assertEquals(Duration.ofMillis(61_250), Durations.parse("f", "1m1s250ms"));
        assertEquals(Duration.ZERO, Durations.parse("f", "0s"));
    }

    @Test
    void givenOtherForms_whenParsed_thenTheyAreRejectedNamingTheField() {
        for (String bad : new String[] {"30", "1.5s", "PT30S", "5 m", "-1s", "", "1d"}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> Durations.parse("spec.shutdownGracePeriod", bad), bad);
            assertTrue(e.getMessage().startsWith("spec.shutdownGracePeriod: '" + bad + "'"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("f", null));
    }

    @Test
    void givenWhatMillisecondsCannotHold_whenParsed_thenItIsRejected_namingNoFieldWhenTheCallerDoes() {
        for (String huge : new String[] {"99999999999999999999ms", "9223372036854775807h", "5000000000000000h1s"}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Durations.parse("f", huge), huge);
            assertTrue(
                    e.getMessage().equals("f: '" + huge + "' is too large; write e.g. 500ms, 30s, 5m or 1h30m"),
                    e.getMessage());
        }
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), Durations.parse("f", Long.MAX_VALUE + "ms"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(null, "soon"));
        assertEquals("'soon' is not a duration; write e.g. 500ms, 30s, 5m or 1h30m", e.getMessage());
    }

    @Test
    void givenADuration_whenFormatted_thenItParsesBackToItself() {
        for (String text : new String[] {"500ms", "30s", "5m", "1h30m", "1m1s250ms", "0s", "2h"}) {
            assertEquals(text, Durations.format(Durations.parse("f", text)));
        }
    }

    @Test
    void givenTheSchemaPattern_thenItIsTheParserPattern() {
        // The CRD's pattern and the parser must accept the same strings.
        assertTrue("1h30m".matches(Durations.PATTERN));
        assertTrue(!"1.5s".matches(Durations.PATTERN));
    }
}
