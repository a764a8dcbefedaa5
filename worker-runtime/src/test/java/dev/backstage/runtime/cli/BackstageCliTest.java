package dev.backstage.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.redis.RedisTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The CLI against the real local Redis. */
@Tag("broker")
class BackstageCliTest {
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private CliRun cli(String... args) {
        return CliRun.of(args);
    }

    @Test
    void givenEnqueuedJobs_thenInspectShowsThemAsUndeliveredInATableAndJson() {
        CliRun enqueue = cli(
                "enqueue", "processOrder", "{\"orderId\":\"o1\"}", "--prefix", redis.prefix(), "--count", "3", "--ids");
        assertEquals(0, enqueue.exit(), enqueue.err());
        assertEquals(
                3, enqueue.out().lines().filter(l -> l.matches("\\d+-\\d+")).count(), enqueue.out());
        assertEquals(3, redis.redis().xlen(redis.prefix() + ":default"));

        CliRun table = cli("inspect", "--prefix", redis.prefix(), "--queue", "default");
        assertEquals(0, table.exit(), table.err());
        assertTrue(
                table.out().lines().anyMatch(l -> l.matches("default\\s+3\\s+0\\s+0\\s+\\S+\\s+0\\s+-\\s*")),
                table.out());

        CliRun json = cli("inspect", "--prefix", redis.prefix(), "--queue", "default", "--json");
        assertTrue(json.out().contains("\"undelivered\" : 3"), json.out());
    }

    /** Exit 2, nothing on stdout, exactly one line on stderr that contains {@code fix}; nothing enqueued. */
    private void assertRejected(String fix, String... args) {
        String[] all = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(args), java.util.stream.Stream.of("--prefix", redis.prefix()))
                .toArray(String[]::new);
        CliRun run = cli(all);
        String shown = String.join(" ", args) + " -> " + run.err();
        assertEquals(2, run.exit(), shown);
        assertEquals("", run.out(), shown);
        assertEquals(1, run.err().lines().count(), shown);
        assertTrue(run.err().startsWith("error: "), shown);
        assertTrue(run.err().contains(fix), shown);
        assertEquals(0, redis.redis().exists(redis.prefix() + ":default"), shown);
        assertEquals(0, redis.redis().exists(redis.prefix() + ":scheduled"), shown);
    }

    @Test
    void givenBadInput_thenOneLineSaysWhatToChangeAndNothingIsEnqueued() {
        assertRejected("give one JSON value", "enqueue", "t", "{oops");
        assertRejected("Missing required parameter: 'PAYLOAD'", "enqueue", "t");
        assertRejected("Missing required parameter", "enqueue");
        assertRejected("the payload is empty; give one JSON value", "enqueue", "t", "");
        assertRejected("is not one JSON value", "enqueue", "t", "{\"a\":1} trailing");
        assertRejected("is not one JSON value", "enqueue", "t", "{\"a\":1}{\"b\":2}");
        assertRejected("'--count': -1 is less than 1", "enqueue", "t", "{}", "--count", "-1");
        assertRejected("'--count': 0 is less than 1", "enqueue", "t", "{}", "--count", "0");
        assertRejected("'--count': 'many' is not a whole number", "enqueue", "t", "{}", "--count", "many");
        assertRejected("'--attempts': -3 is less than 1", "enqueue", "t", "{}", "--attempts", "-3");
        assertRejected(
                "'--delay': 'soon' is not a duration; write e.g. 500ms", "enqueue", "t", "{}", "--delay", "soon");
        assertRejected(
                "'99999999999999999999ms' is too large", "enqueue", "t", "{}", "--delay", "99999999999999999999ms");
        assertRejected("'9223372036854775807h' is too large", "enqueue", "t", "{}", "--delay", "9223372036854775807h");
        assertRejected("delay must be at most 3650 days", "enqueue", "t", "{}", "--delay", "9223372036854775807ms");
        assertRejected("schedule needs --delay, e.g. --delay 30s", "schedule", "t", "{}");
        assertRejected("'--limit': 0 is less than 1", "dead-letters", "list", "--limit", "0");
        CliRun bare = cli("dead-letters");
        assertEquals(2, bare.exit());
        assertEquals(1, bare.err().lines().count(), bare.err());
        assertTrue(bare.err().contains("dead-letters needs a subcommand: `dead-letters list --queue Q`"), bare.err());
        assertRejected("Unknown option: '--bogus'", "inspect", "--bogus");
    }

    @Test
    void givenUnsafeNames_thenTheCliRefusesThemBeforeTouchingTheBroker() {
        CliRun run = cli("dead-letters", "redrive", "--prefix", "hy:a", "--queue", "dead-letter");
        assertEquals(2, run.exit(), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("'dead-letter' is reserved"), run.err());
        run = cli("dead-letters", "redrive", "--prefix", "hy:a", "--queue", "default");
        assertEquals(2, run.exit(), run.err());
        assertTrue(run.err().contains("key prefix 'hy:a' is not a valid key prefix"), run.err());
        assertTrue(run.err().contains("no '.' or ':'"), run.err());
        assertRejected("TASK 'a\\u000Ab' is not a valid task name", "enqueue", "a\nb", "{}");
        assertRejected("TASK '\\u001B[31mred' is not a valid task name", "enqueue", "\u001B[31mred", "{}");
        assertRejected("(100000 characters)", "enqueue", "t".repeat(100_000), "{}");
        assertRejected("queue name '<script>' is not a valid name", "enqueue", "t", "{}", "--queue", "<script>");
        assertRejected("--queue 'dead-letter' is reserved", "dead-letters", "list", "--queue", "dead-letter");
    }

    @Test
    void givenHelpOnAnySubcommand_thenItsUsageIsPrintedAndTheExitIsZero() {
        for (String[] command : new String[][] {
            {},
            {"enqueue"},
            {"schedule"},
            {"inspect"},
            {"dead-letters"},
            {"dead-letters", "list"},
            {"dead-letters", "redrive"}
        }) {
            for (String flag : new String[] {"--help", "-h"}) {
                String[] args = java.util.Arrays.copyOf(command, command.length + 1);
                args[command.length] = flag;
                CliRun run = cli(args);
                String name = ("backstage " + String.join(" ", command)).trim();
                assertEquals(0, run.exit(), name + " " + flag + ": " + run.err());
                assertTrue(run.out().startsWith("Usage: " + name + " "), run.out());
            }
        }
        assertTrue(cli("enqueue", "--help").out().contains("PAYLOAD"));
    }

    @Test
    void givenAnUnreachableBroker_thenOneLineNamesItWithCredentialsMaskedAndTheExitIsThree() {
        for (String[] broker : new String[][] {
            {"redis", "redis://user:s3cret@127.0.0.1:1"}, {"rabbitmq", "amqp://user:s3cret@127.0.0.1:1"}
        }) {
            for (String[] command : new String[][] {{"inspect"}, {"enqueue", "t", "{}"}, {"dead-letters", "list"}}) {
                String[] args = java.util.stream.Stream.concat(
                                java.util.Arrays.stream(command),
                                java.util.stream.Stream.of("--provider", broker[0], "--url", broker[1]))
                        .toArray(String[]::new);
                CliRun run = cli(args);
                String shown = String.join(" ", args) + " -> " + run.err();
                assertEquals(3, run.exit(), shown);
                assertEquals(1, run.err().lines().count(), shown);
                assertTrue(run.err().contains("127.0.0.1:1"), shown);
                assertTrue(run.err().contains("***@"), shown);
                assertTrue(!run.err().contains("s3cret"), shown);
                assertTrue(run.err().contains("check --url"), shown);
            }
        }
    }

    @Test
    void givenCount_thenASummaryLineIsPrintedAndIdsOnlyWhenAsked() {
        CliRun summary = cli("enqueue", "t", "{\"n\":1}", "--count", "100", "--prefix", redis.prefix());
        assertEquals(0, summary.exit(), summary.err());
        assertEquals(1, summary.out().lines().count(), summary.out());
        assertTrue(summary.out().startsWith("enqueued 100 of 100 jobs onto default (first "), summary.out());
        assertEquals(100, redis.redis().xlen(redis.prefix() + ":default"));

        CliRun one = cli("enqueue", "t", "{}", "--prefix", redis.prefix());
        assertTrue(one.out().trim().matches("\\d+-\\d+"), one.out());

        CliRun dedupe = cli("enqueue", "t", "{}", "--count", "3", "--dedupe", "k1", "--prefix", redis.prefix());
        assertEquals(0, dedupe.exit(), dedupe.err());
        assertTrue(dedupe.out().startsWith("enqueued 1 of 3 jobs onto default"), dedupe.out());
        assertTrue(dedupe.out().contains("2 skipped: dedupe key 'k1' is taken"), dedupe.out());
        assertEquals(102, redis.redis().xlen(redis.prefix() + ":default"));
    }

    @Test
    void givenDeadLetters_thenListShowsThemAndRedriveMovesThemAll() {
        for (int i = 0; i < 4; i++) {
            redis.redis()
                    .xadd(
                            redis.prefix() + ":default:dead-letter",
                            "taskName",
                            "t",
                            "payload",
                            "{\"n\":" + i + "}",
                            "enqueuedAt",
                            "1",
                            "originalId",
                            "1-" + i,
                            "deliveryCount",
                            "6",
                            "deadLetteredAt",
                            "2",
                            "error",
                            "boom");
        }
        CliRun list = cli("dead-letters", "list", "--queue", "default", "--prefix", redis.prefix());
        assertTrue(list.out().startsWith("4 dead letters on default"), list.out());
        assertTrue(list.out().contains("error=boom"), list.out());

        CliRun redrive = cli("dead-letters", "redrive", "--queue", "default", "--prefix", redis.prefix());
        assertEquals("redrove 4 jobs onto default", redrive.out().trim());
        assertEquals(0, redis.redis().xlen(redis.prefix() + ":default:dead-letter"));
        assertEquals(4, redis.redis().xlen(redis.prefix() + ":default"));
    }

    @Test
    void givenScheduleWithADelay_thenTheJobWaitsInTheDelaySet() {
        CliRun run = cli("schedule", "later", "{}", "--delay", "5m", "--prefix", redis.prefix());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("scheduled:"), run.out());
        assertEquals(1, redis.redis().zcard(redis.prefix() + ":scheduled"));
    }

    @Test
    void givenDelayedJobsOnTwoQueues_thenInspectCountsEachWithItsNextDueTimeAsRedisHoldsThem() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals(
                    0,
                    cli("schedule", "later", "{\"n\":" + i + "}", "--delay", (5 + i) + "m", "--prefix", redis.prefix())
                            .exit());
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(
                    0,
                    cli("schedule", "mail", "{}", "--delay", "1h", "--queue", "emails", "--prefix", redis.prefix())
                            .exit());
        }
        assertEquals(
                0,
                cli("schedule", "other", "{}", "--delay", "2m", "--queue", "other", "--prefix", redis.prefix())
                        .exit());
        String scheduled = redis.prefix() + ":scheduled";
        assertEquals(6, redis.redis().zcard(scheduled));
        // What Redis holds, read independently of the CLI: per queue the count and the lowest score.
        java.util.Map<String, long[]> held = new java.util.HashMap<>();
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        for (var member : redis.redis().zrangeWithScores(scheduled, 0, -1)) {
            String queue = mapper.readTree(member.getValue())
                    .get("streamKey")
                    .asText()
                    .substring(redis.prefix().length() + 1);
            held.merge(queue, new long[] {1, (long) member.getScore()}, (a, b) ->
                    new long[] {a[0] + b[0], Math.min(a[1], b[1])});
        }
        assertEquals(3, held.get("default")[0]);
        assertEquals(2, held.get("emails")[0]);

        CliRun json = cli("inspect", "--prefix", redis.prefix(), "--queue", "default,emails", "--json");
        assertEquals(0, json.exit(), json.err());
        var delayed = mapper.readTree(json.out()).get("delayed");
        assertEquals(2, delayed.size(), json.out());
        for (var entry : delayed) {
            long[] expected = held.get(entry.get("queue").asText());
            assertEquals(expected[0], entry.get("count").asLong(), json.out());
            assertEquals(
                    java.time.Instant.ofEpochMilli(expected[1]).toString(),
                    entry.get("nextDueAt").asText(),
                    json.out());
        }

        CliRun table = cli("inspect", "--prefix", redis.prefix(), "--queue", "default,emails");
        assertEquals(0, table.exit(), table.err());
        System.out.println(table.out());
        assertTrue(
                table.out()
                        .lines()
                        .anyMatch(l -> l.matches("default\\s+0\\s+0\\s+0\\s+\\S+\\s+3\\s+\\S+ \\(in \\d+m\\)\\s*")),
                table.out());
        assertTrue(
                table.out()
                        .lines()
                        .anyMatch(l -> l.matches("emails\\s+0\\s+0\\s+0\\s+\\S+\\s+2\\s+\\S+ \\(in \\d+m\\)\\s*")),
                table.out());
    }
}
