package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.spi.FilterReply;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.logging.LogBackend;
import dev.backstage.runtime.logging.LogSettings;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.testsupport.UniqueNames;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * A worker on a Kafka that is not there (a closed loopback port), with the logging the mains configure: the Kafka
 * client tries to write the same reconnect lines at every attempt, and what reaches the output stays a handful of
 * lines. Counted, not timed: the window closes when the client has tried to write {@value #ATTEMPTS} lines, and
 * the test prints both sides (lines tried, lines written).
 */
@Tag("broker")
class KafkaUnreachableLogTest {
    /** Lines the Kafka client must have tried to write at INFO or WARN before the written ones are counted. */
    private static final int ATTEMPTS = 2_000;
    /** At most this many Kafka client lines reach the output in that window (the flood was 14,000 in 16 s). */
    private static final int WRITTEN_BOUND = 40;
    /** A line the text format writes for a Kafka client logger at INFO or WARN. */
    private static final Pattern KAFKA_LINE =
            Pattern.compile("^\\S+ (INFO|WARN) +\\[[^]]*] (org\\.apache\\.)?kafka\\..*");

    private final PrintStream original = System.out;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final RedisTestSupport redis = new RedisTestSupport();
    private Worker worker;
    private CompletableFuture<Worker> starting;

    /** Counts, ahead of every other filter, the Kafka client's log calls that its level lets through. */
    private static final class Attempts extends TurboFilter {
        final AtomicInteger total = new AtomicInteger();
        final Map<String, AtomicInteger> byPattern = new ConcurrentHashMap<>();

        @Override
        public FilterReply decide(
                Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
            if (logger != null
                    && level != null
                    && format != null
                    && level.isGreaterOrEqual(Level.INFO)
                    && level.levelInt < Level.ERROR_INT
                    && logger.isEnabledFor(level)
                    && (logger.getName().startsWith("org.apache.kafka.")
                            || logger.getName().startsWith("kafka."))) {
                total.incrementAndGet();
                byPattern
                        .computeIfAbsent(logger.getName() + " " + format, k -> new AtomicInteger())
                        .incrementAndGet();
            }
            return FilterReply.NEUTRAL;
        }
    }

    @AfterEach
    void restore() throws Exception {
        if (starting != null) {
            await().atMost(Duration.ofSeconds(120)).until(starting::isDone); // it fails: no Kafka there
        }
        if (worker != null) {
            worker.close();
        }
        redis.close();
        System.setOut(original);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    @Test
    void givenAnUnreachableKafka_whenAWorkerKeepsReconnecting_thenOnlyAFewOfItsRepeatedLinesAreWritten()
            throws Exception {
        int closedPort;
        try (ServerSocket free = new ServerSocket(0)) {
            closedPort = free.getLocalPort();
        }
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        LogBackend.configure(LogSettings.DEFAULTS, LogBackend.Target.STDOUT);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Attempts attempts = new Attempts();
        attempts.setContext(context);
        attempts.start();
        context.getTurboFilterList().add(0, attempts);

        KafkaSettings settings = KafkaSettings.of("127.0.0.1:" + closedPort)
                .withPrefix(UniqueNames.prefix("bk"))
                .withGroup(UniqueNames.prefix("workers"));
        worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .consumerId("pod-0")
                .concurrency(2)
                .shutdownGrace(Duration.ofSeconds(1))
                .build();
        worker.register("work", String.class, (ctx, job) -> Next.done());
        // start() waits for the topic it creates, until the admin client's timeout: the flood happens meanwhile.
        starting = CompletableFuture.supplyAsync(worker::start);
        original.println("waiting until the Kafka client has tried to write " + ATTEMPTS + " lines");
        await().atMost(Duration.ofSeconds(180)).until(() -> attempts.total.get() >= ATTEMPTS || starting.isDone());
        assertTrue(
                attempts.total.get() >= ATTEMPTS,
                "the worker's start ended before the Kafka client tried to write " + ATTEMPTS + " lines: "
                        + starting.handle((w, e) -> String.valueOf(e)).join());

        int tried = attempts.total.get(); // read first: the lines below can only be more, never fewer
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> kafkaLines =
                lines.stream().filter(l -> KAFKA_LINE.matcher(l).matches()).toList();
        original.printf(
                "unreachable Kafka: the client tried to write %d INFO/WARN lines in %d patterns; %d were"
                        + " written (%d lines in all, the project's included)%n",
                tried, attempts.byPattern.size(), kafkaLines.size(), lines.size());
        attempts.byPattern.forEach((pattern, n) -> original.println("  " + n + " x " + pattern));
        assertTrue(
                kafkaLines.size() <= WRITTEN_BOUND,
                kafkaLines.size() + " Kafka client lines written:\n" + String.join("\n", kafkaLines));
        assertTrue(kafkaLines.size() > 0, "the first line of each pattern is written: " + String.join("\n", lines));
    }
}
