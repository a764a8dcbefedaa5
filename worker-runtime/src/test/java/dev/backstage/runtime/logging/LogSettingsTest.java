package dev.backstage.runtime.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogSettingsTest {

    @Test
    void givenNoVariables_whenRead_thenInfoAsText() {
        assertEquals(new LogSettings("info", Map.of(), LogFormat.TEXT), LogSettings.fromEnv(Map.of()));
        assertEquals(
                LogSettings.DEFAULTS,
                LogSettings.fromEnv(Map.of("BACKSTAGE_LOG_LEVEL", " ", "BACKSTAGE_LOG_FORMAT", "")));
    }

    @Test
    void givenEveryVariable_whenRead_thenLevelsAndFormatAreNormalised() {
        LogSettings settings = LogSettings.fromEnv(Map.of(
                "BACKSTAGE_LOG_LEVEL",
                "DEBUG",
                "BACKSTAGE_LOG_LEVELS",
                "org.apache.kafka=WARN, io.javaoperatorsdk = debug,",
                "BACKSTAGE_LOG_FORMAT",
                "Json"));
        assertEquals("debug", settings.level());
        assertEquals(Map.of("io.javaoperatorsdk", "debug", "org.apache.kafka", "warn"), settings.loggers());
        assertEquals(LogFormat.JSON, settings.format());
    }

    @Test
    void givenSettings_whenWrittenAsEnvAndReadBack_thenTheSame() {
        LogSettings settings = new LogSettings("warn", Map.of("b.c", "error", "a", "trace"), LogFormat.JSON);
        Map<String, String> env = settings.toEnv();
        assertEquals(
                new LinkedHashMap<>(Map.of(
                        "BACKSTAGE_LOG_LEVEL",
                        "warn",
                        "BACKSTAGE_LOG_LEVELS",
                        "a=trace,b.c=error",
                        "BACKSTAGE_LOG_FORMAT",
                        "json")),
                env);
        assertEquals(settings, LogSettings.fromEnv(env));
        assertEquals(
                Map.of("BACKSTAGE_LOG_LEVEL", "info", "BACKSTAGE_LOG_FORMAT", "text"),
                LogSettings.DEFAULTS.toEnv(),
                "no empty BACKSTAGE_LOG_LEVELS");
    }

    @Test
    void givenAPrefix_whenRead_thenThoseVariablesOverTheDefaults() {
        LogSettings defaults = new LogSettings("warn", Map.of(), LogFormat.TEXT);
        LogSettings settings = LogSettings.fromEnv(
                Map.of("BACKSTAGE_WORKER_LOG_FORMAT", "json", "BACKSTAGE_LOG_FORMAT", "text"),
                "BACKSTAGE_WORKER_LOG_",
                defaults);
        assertEquals(new LogSettings("warn", Map.of(), LogFormat.JSON), settings);
    }

    @Test
    void givenBadValues_whenRead_thenTheMessageNamesTheVariableAndTheAllowedValues() {
        assertEquals(
                "BACKSTAGE_LOG_LEVEL must be one of trace, debug, info, warn, error, off, got 'verbose'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> LogSettings.fromEnv(Map.of("BACKSTAGE_LOG_LEVEL", "verbose")))
                        .getMessage());
        assertEquals(
                "BACKSTAGE_WORKER_LOG_FORMAT must be one of text, json, got 'logfmt'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> LogSettings.fromEnv(
                                        Map.of("BACKSTAGE_WORKER_LOG_FORMAT", "logfmt"),
                                        "BACKSTAGE_WORKER_LOG_",
                                        LogSettings.DEFAULTS))
                        .getMessage());
        assertEquals(
                "BACKSTAGE_LOG_LEVELS (org.apache.kafka) must be one of trace, debug, info, warn, error, off,"
                        + " got 'loud'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> LogSettings.fromEnv(Map.of("BACKSTAGE_LOG_LEVELS", "org.apache.kafka=loud")))
                        .getMessage());
        assertEquals(
                "BACKSTAGE_LOG_LEVELS must be a comma-separated list of <logger>=<level> (e.g."
                        + " io.javaoperatorsdk=debug,org.apache.kafka=warn), got 'org.apache.kafka'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> LogSettings.fromEnv(Map.of("BACKSTAGE_LOG_LEVELS", "org.apache.kafka")))
                        .getMessage());
    }
}
