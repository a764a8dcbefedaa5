package dev.backstage.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.redis.RedisTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CLI against the real local Redis. */
class BackstageCliTest {
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private record Run(int exit, String out, String err) {}

    private Run cli(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int exit = BackstageCli.execute(args);
            return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void givenEnqueuedJobsThenInspectShowsThemAsUndeliveredInATableAndJson() {
        Run enqueue = cli("enqueue", "processOrder", "{\"orderId\":\"o1\"}", "--prefix", redis.prefix(), "--count", "3");
        assertEquals(0, enqueue.exit(), enqueue.err());
        assertEquals(3, enqueue.out().lines().count());
        assertEquals(3, redis.redis().xlen(redis.prefix() + ":default"));

        Run table = cli("inspect", "--prefix", redis.prefix(), "--queue", "default");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("default\\s+3\\s+0\\s+0\\s+\\S+")), table.out());

        Run json = cli("inspect", "--prefix", redis.prefix(), "--queue", "default", "--json");
        assertTrue(json.out().contains("\"undelivered\" : 3"), json.out());
    }

    @Test
    void givenBadInputThenTheErrorSaysWhatToChange() {
        Run notJson = cli("enqueue", "t", "{oops", "--prefix", redis.prefix());
        assertEquals(2, notJson.exit());
        assertTrue(notJson.err().contains("payload"), notJson.err());
        Run noDelay = cli("schedule", "t", "{}", "--prefix", redis.prefix());
        assertTrue(noDelay.err().contains("schedule needs --delay"), noDelay.err());
        Run badDelay = cli("enqueue", "t", "{}", "--delay", "soon", "--prefix", redis.prefix());
        assertTrue(badDelay.err().contains("--delay must look like 500ms"), badDelay.err());
        assertEquals(0, redis.redis().exists(redis.prefix() + ":default"));
    }

    @Test
    void givenDeadLettersThenListShowsThemAndRedriveMovesThemAll() {
        for (int i = 0; i < 4; i++) {
            redis.redis().xadd(redis.prefix() + ":default:dead-letter", "taskName", "t", "payload", "{\"n\":" + i + "}",
                    "enqueuedAt", "1", "originalId", "1-" + i, "deliveryCount", "6", "deadLetteredAt", "2", "error", "boom");
        }
        Run list = cli("dead-letters", "list", "--queue", "default", "--prefix", redis.prefix());
        assertTrue(list.out().startsWith("4 dead letters on default"), list.out());
        assertTrue(list.out().contains("error=boom"), list.out());

        Run redrive = cli("dead-letters", "redrive", "--queue", "default", "--prefix", redis.prefix());
        assertEquals("redrove 4 jobs onto default", redrive.out().trim());
        assertEquals(0, redis.redis().xlen(redis.prefix() + ":default:dead-letter"));
        assertEquals(4, redis.redis().xlen(redis.prefix() + ":default"));
    }

    @Test
    void givenScheduleWithADelayThenTheJobWaitsInTheDelaySet() {
        Run run = cli("schedule", "later", "{}", "--delay", "5m", "--prefix", redis.prefix());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("scheduled:"), run.out());
        assertEquals(1, redis.redis().zcard(redis.prefix() + ":scheduled"));
    }
}
