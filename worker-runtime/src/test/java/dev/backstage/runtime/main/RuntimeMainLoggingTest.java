package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container main's log as a pod writes it: its own JVM, {@code BACKSTAGE_LOG_*} in its environment, a job
 * whose handler logs (with an exception), SIGTERM. stdout and stderr are kept apart and read whole.
 */
@Tag("broker")
class RuntimeMainLoggingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TEXT_LINE = Pattern.compile(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR) \\[[^\\]]+\\] \\S+( \\[[^\\]]+\\])? - .*");

    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Process> processes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() throws Exception {
        for (Process process : processes) {
            if (process.isAlive()) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        redis.close();
    }

    @Test
    void givenJsonFormat_whenAJobLogsAnError_thenEveryStdoutLineIsOneJsonObjectWithMdcAndTheExceptionAsAString()
            throws Exception {
        Run run = runJob(Map.of("BACKSTAGE_LOG_FORMAT", "json"));

        List<JsonNode> events = new ArrayList<>();
        for (String line : run.stdout()) {
            JsonNode event = JSON.readTree(line); // throws on anything that is not exactly one JSON value
            assertTrue(event.isObject(), "a JSON object per line: " + line);
            for (String field : List.of("timestamp", "level", "logger", "thread", "message")) {
                assertTrue(event.path(field).isTextual(), field + " in " + line);
            }
            assertTrue(
                    event.get("timestamp").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"),
                    "ISO-8601 UTC time: " + line);
            events.add(event);
        }
        assertTrue(events.size() >= 5, "the main's own lines and the handler's: " + run.stdout());
        assertTrue(
                events.stream()
                        .anyMatch(e -> e.get("message").asText().startsWith("task modules:")
                                && e.get("logger").asText().equals(RuntimeMain.class.getName())),
                "the main's start-up line");
        assertFalse(events.stream().anyMatch(e -> e.get("level").asText().equals("DEBUG")), "info and up by default");

        JsonNode failure = events.stream()
                .filter(e -> e.get("message").asText().startsWith("probe failed"))
                .findFirst()
                .orElseThrow();
        assertEquals("ERROR", failure.get("level").asText());
        assertEquals(LoggingProbeModule.class.getName(), failure.get("logger").asText());
        assertEquals(
                "probe failed on purpose\nsecond line of the message",
                failure.get("message").asText(),
                "a two-line message stays in one JSON line");
        assertEquals(LoggingProbeModule.TASK, failure.path("mdc").path("task").asText(), "the job's task in the MDC");
        assertEquals(run.jobId(), failure.path("mdc").path("jobId").asText(), "the job's id in the MDC");
        assertEquals("orders", failure.path("mdc").path("queue").asText());
        String exception = failure.path("exception").asText();
        assertTrue(exception.startsWith("java.lang.IllegalStateException: outer"), exception);
        assertTrue(
                exception.contains("\tat ") && exception.contains("Caused by: java.io.IOException: inner cause"),
                "the whole stack trace with its cause, as one string: " + exception);
        assertTrue(events.stream().filter(e -> e.has("exception")).count() == 1, "only the handler's line has one");
        assertTrue(
                events.stream().anyMatch(e -> e.get("message").asText().startsWith("worker stopped")),
                "the shutdown line");
        assertEquals(List.of(), run.stderr(), "nothing on stderr");
    }

    @Test
    void givenTextFormatAndALoggerLevel_whenAJobLogs_thenLinesAreTextAndTheLoggerAtWarnDropsItsInfoLine()
            throws Exception {
        Run run = runJob(Map.of(
                "BACKSTAGE_LOG_FORMAT", "text", "BACKSTAGE_LOG_LEVELS", LoggingProbeModule.class.getName() + "=warn"));

        List<String> events = run.stdout().stream()
                .filter(l -> TEXT_LINE.matcher(l).matches())
                .toList();
        assertTrue(
                events.stream().anyMatch(l -> l.contains(" INFO  ") && l.contains("task modules:")),
                run.stdout().toString());
        String failure = events.stream()
                .filter(l -> l.contains("probe failed on purpose"))
                .findFirst()
                .orElseThrow();
        assertTrue(
                failure.contains("ERROR")
                        && failure.contains("task=" + LoggingProbeModule.TASK)
                        && failure.contains("jobId=" + run.jobId()),
                "level and the job's MDC on the line: " + failure);
        assertFalse(run.stdout().stream().anyMatch(l -> l.contains("probe got")), "the probe logger is at warn");
        int at = run.stdout().indexOf(failure);
        assertEquals("second line of the message", run.stdout().get(at + 1));
        assertEquals("java.lang.IllegalStateException: outer", run.stdout().get(at + 2), "then the stack trace");
        assertTrue(run.stdout().stream().anyMatch(l -> l.startsWith("Caused by: java.io.IOException: inner cause")));
        assertTrue(run.stdout().stream().noneMatch(l -> l.startsWith("{")), "no JSON in text mode");
    }

    @Test
    void givenJsonFormat_whenTheMainFailsWithAnUncaughtException_thenItIsOneJsonLineWithTheExceptionAndExitIsNonZero()
            throws Exception {
        Process process = start(
                Map.of("BACKSTAGE_LOG_FORMAT", "json"),
                dir.resolve("missing.yaml").toString(),
                "uncaught");
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertTrue(process.exitValue() != 0, "a failed start exits non-zero");
        List<String> stdout = Files.readAllLines(dir.resolve("uncaught.out"));
        assertEquals(1, stdout.size(), "one event: " + stdout);
        JsonNode event = JSON.readTree(stdout.get(0));
        assertEquals("ERROR", event.get("level").asText());
        assertTrue(
                event.get("exception").asText().contains("cannot read runtime config")
                        && event.get("exception").asText().contains("\tat "),
                event.toString());
        assertEquals(List.of(), Files.readAllLines(dir.resolve("uncaught.err")), "no loose stack trace on stderr");
    }

    @Test
    void givenABadFormatOrLevel_whenTheMainStarts_thenOneLineNamesTheAllowedValuesAndItExitsWithStatusTwo()
            throws Exception {
        for (Map.Entry<String, String> bad : Map.of(
                        "BACKSTAGE_LOG_FORMAT", "error: BACKSTAGE_LOG_FORMAT must be one of text, json, got 'xml'",
                        "BACKSTAGE_LOG_LEVEL",
                                "error: BACKSTAGE_LOG_LEVEL must be one of trace, debug, info, warn, error, off, got 'xml'",
                        "BACKSTAGE_LOG_LEVELS",
                                "error: BACKSTAGE_LOG_LEVELS must be a comma-separated list of <logger>=<level>"
                                        + " (e.g. io.javaoperatorsdk=debug,org.apache.kafka=warn), got 'xml'")
                .entrySet()) {
            String name = "bad-" + bad.getKey();
            Process process = start(
                    Map.of(bad.getKey(), "xml"), dir.resolve("missing.yaml").toString(), name);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, process.exitValue(), bad.getKey());
            assertEquals(List.of(bad.getValue()), Files.readAllLines(dir.resolve(name + ".err")));
            assertEquals(List.of(), Files.readAllLines(dir.resolve(name + ".out")), "nothing else");
        }
    }

    private record Run(List<String> stdout, List<String> stderr, String jobId) {}

    /** Starts the main with {@code env} on a Redis queue, runs one probe job, waits for its lines, SIGTERM. */
    private Run runJob(Map<String, String> env) throws Exception {
        Path config = RuntimeMainFixture.redisConfig(dir.resolve("runtime.yaml"), redis.prefix());
        int port = RuntimeMainFixture.freePort();
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("MY_REDIS", RedisTestSupport.URL);
        all.put("BACKSTAGE_HTTP_PORT", Integer.toString(port));
        String name = "run-" + env.get("BACKSTAGE_LOG_FORMAT");
        Process process = start(all, config.toString(), name);
        RuntimeMainFixture.awaitReady(port);
        String jobId;
        try (RedisProvider provider = redis.provider()) {
            Producer producer = JobProducer.forProvider(provider);
            jobId = producer.enqueue(LoggingProbeModule.TASK, Map.of("n", 1), EnqueueOptions.onQueue("orders"))
                    .id();
        }
        Path out = dir.resolve(name + ".out");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(out).contains("inner cause"));
        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the runtime exits after SIGTERM");
        assertEquals(0, process.exitValue());
        Run run = new Run(Files.readAllLines(out), Files.readAllLines(dir.resolve(name + ".err")), jobId);
        System.out.println("runtime main with " + env + ", stdout:\n" + String.join("\n", run.stdout()) + "\nstderr:\n"
                + String.join("\n", run.stderr()));
        return run;
    }

    /** The real main in its own JVM, {@link LoggingProbeModule} added through a services file of its own. */
    private Process start(Map<String, String> env, String config, String name) throws IOException {
        Path services = dir.resolve("probe-module/META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(TaskModule.class.getName()), LoggingProbeModule.class.getName() + "\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(
                        java,
                        "-cp",
                        dir.resolve("probe-module") + File.pathSeparator + System.getProperty("java.class.path"),
                        RuntimeMain.class.getName(),
                        config)
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("BACKSTAGE_LOG_"));
        builder.environment().putAll(env);
        Process process = builder.start();
        processes.add(process);
        return process;
    }
}
