package dev.backstage.operator.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsoleSettingsTest {
    @Test
    void givenNoVariables_whenRead_thenTheConsoleIsOnAtPort8082WithOneHourOfHistory() {
        ConsoleSettings settings = ConsoleSettings.fromEnv(Map.of());
        assertTrue(settings.enabled());
        assertEquals(8082, settings.port());
        assertEquals(3600, settings.historySeconds());
    }

    @Test
    void givenEnabledFalse_whenRead_thenTheConsoleIsOff() {
        assertFalse(ConsoleSettings.fromEnv(Map.of("BACKSTAGE_CONSOLE_ENABLED", "false"))
                .enabled());
    }

    @Test
    void givenAPortThatIsNotANumber_whenRead_thenOneLineSaysWhichVariableAndWhatItGot() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ConsoleSettings.fromEnv(Map.of("BACKSTAGE_CONSOLE_PORT", "http")));
        assertEquals("BACKSTAGE_CONSOLE_PORT must be a port number (0-65535), got 'http'", e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> ConsoleSettings.fromEnv(Map.of("BACKSTAGE_CONSOLE_PORT", "70000")));
    }
}
