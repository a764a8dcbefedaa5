package dev.backstage.runtime.main;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.UniqueNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container main in its own JVM against a Redis that is not there, with the project's log level at debug: one
 * ERROR line that says what failed, no stack trace, no password, exit 1; and debug is the project's own, not every
 * library's.
 */
class RuntimeMainStartFailureTest {
    @TempDir
    Path dir;

    @Test
    void givenAnUnreachableRedisAtStart_thenTheMainPrintsOneErrorLineAndNoLibraryDebugOutput() throws Exception {
        Path config = RuntimeMainFixture.redisConfig(dir.resolve("runtime.yaml"), UniqueNames.prefix("startfail"));
        int closedPort = RuntimeMainFixture.freePort();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = dir.resolve("out.log");
        ProcessBuilder builder = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        RuntimeMain.class.getName(),
                        config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("MY_REDIS", "redis://:Hidden99pw@127.0.0.1:" + closedPort);
        builder.environment().put("BACKSTAGE_LOG_LEVEL", "debug");
        builder.environment().put("BACKSTAGE_HTTP_PORT", Integer.toString(RuntimeMainFixture.freePort()));
        Process process = builder.start();
        try {
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the main exits when Redis is unreachable");
        } finally {
            process.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log);
        String all = String.join("\n", lines);
        assertEquals(1, process.exitValue(), all);
        List<String> errors = lines.stream().filter(l -> l.contains(" ERROR ")).toList();
        assertEquals(1, errors.size(), all);
        assertTrue(
                errors.get(0).contains("worker cannot start") && errors.get(0).contains("127.0.0.1"), all);
        assertTrue(
                lines.stream()
                        .noneMatch(l -> l.startsWith("\tat ")
                                || l.startsWith("Exception in thread")
                                || l.startsWith("Caused by")),
                all);
        assertFalse(all.contains("Hidden99pw"), all);
        List<String> libraryDebug = lines.stream()
                .filter(l -> l.matches(".* (DEBUG|TRACE) \\[[^\\]]+\\] (?!dev\\.backstage).*"))
                .toList();
        assertEquals(List.of(), libraryDebug, "debug is the project's level, not the libraries'");
    }
}
