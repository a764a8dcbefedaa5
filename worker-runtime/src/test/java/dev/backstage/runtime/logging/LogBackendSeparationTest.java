package dev.backstage.runtime.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mains' logging set-up as configured, writing to a captured stdout: the project's level and the libraries' are
 * separate, and a broker client's repeated reconnect lines are throttled.
 */
class LogBackendSeparationTest {
    private final PrintStream original = System.out;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private String[] lines() {
        return captured.toString(StandardCharsets.UTF_8).lines().toArray(String[]::new);
    }

    private void configure(LogSettings settings) {
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        LogBackend.configure(settings, LogBackend.Target.STDOUT);
    }

    @AfterEach
    void restore() throws Exception {
        System.setOut(original);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    @Test
    void givenProjectLevelDebug_thenTheLibrariesStayAtInfoUnlessTheirOwnLevelIsSet() {
        configure(new LogSettings("debug", Map.of(), LogFormat.TEXT));
        LoggerFactory.getLogger("dev.backstage.runtime.core.Probe").debug("project debug");
        LoggerFactory.getLogger("org.apache.kafka.clients.Probe").debug("library debug");
        LoggerFactory.getLogger("io.lettuce.core.Probe").info("library info");
        assertEquals(2, lines().length, String.join("\n", lines()));
        captured.reset();
        configure(new LogSettings("info", Map.of(), LogFormat.TEXT, "debug"));
        LoggerFactory.getLogger("dev.backstage.runtime.core.Probe").debug("project debug");
        LoggerFactory.getLogger("org.apache.kafka.clients.Probe").debug("library debug");
        assertEquals(1, lines().length, String.join("\n", lines()));
        assertEquals(true, lines()[0].endsWith("library debug"));
        captured.reset();
        configure(LogSettings.fromEnv(Map.of("BACKSTAGE_LOG_LEVEL", "error")));
        LoggerFactory.getLogger("org.apache.kafka.clients.Probe").warn("library warn");
        assertEquals(0, lines().length, "a quieter project level quiets the libraries too");
    }

    @Test
    void givenAnUnreachableBrokersRepeatedReconnectLines_thenOnlyTheFirstInAWindowIsWritten() {
        configure(LogSettings.DEFAULTS);
        Logger kafka = LoggerFactory.getLogger("org.apache.kafka.clients.NetworkClient");
        Logger ours = LoggerFactory.getLogger("dev.backstage.runtime.kafka.Probe");
        for (int i = 0; i < 1_000; i++) {
            kafka.warn("[AdminClient clientId=a] Connection to node {} (/127.0.0.1:1) could not be established.", -1);
            kafka.info("[AdminClient clientId=a] Node {} disconnected.", -1);
        }
        kafka.error("[AdminClient clientId=a] a real error");
        for (int i = 0; i < 3; i++) {
            ours.warn("broker unreachable, attempt {}", i);
        }
        assertEquals(2 + 1 + 3, lines().length, String.join("\n", lines()));
    }
}
