package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.cli.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code backstage inspect} on RabbitMQ counts the jobs waiting in the delay ladder, as the broker holds them. */
@Tag("broker")
class RabbitMqInspectDelayedTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    private CliRun cli(String... args) {
        String[] all = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(args),
                        java.util.stream.Stream.of(
                                "--provider", "rabbitmq", "--url", RabbitMqTestBroker.URL, "--prefix", broker.prefix))
                .toArray(String[]::new);
        return CliRun.of(all);
    }

    @Test
    void givenJobsScheduledOnTwoQueues_thenInspectShowsTheLadderTotalThatTheBrokerHolds() throws Exception {
        for (int i = 0; i < 3; i++) {
            CliRun run = cli("schedule", "later", "{}", "--delay", "10m");
            assertEquals(0, run.exit(), run.err());
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(
                    0,
                    cli("schedule", "mail", "{}", "--delay", "1h", "--queue", "emails")
                            .exit());
        }
        // The broker's own count of the ladder's level queues, read without the provider.
        long held = 0;
        for (int level = 0; level < DelayLadder.standard().levels(); level++) {
            held += broker.ready(broker.queue(String.format("delay-level.%02d", level)));
        }
        assertEquals(5, held, "the ladder holds what was scheduled");

        CliRun json = cli("inspect", "--queue", "default,emails", "--json");
        assertEquals(0, json.exit(), json.err());
        JsonNode delayed = broker.json(json.out()).get("delayed");
        assertEquals(1, delayed.size(), json.out());
        assertTrue(delayed.get(0).get("queue").isNull(), "one total for all queues: " + json.out());
        assertEquals(held, delayed.get(0).get("count").asLong(), json.out());

        CliRun table = cli("inspect", "--queue", "default,emails");
        System.out.println(table.out());
        assertTrue(table.out().contains("delayed (all queues): 5; the delay ladder"), table.out());
        // In flight is "?" until the management API has statistics for the new queue; the delayed columns are "?"
        // always.
        assertTrue(
                table.out().lines().anyMatch(l -> l.matches("default\\s+0\\s+\\S+\\s+0\\s+\\S+\\s+\\?\\s+\\?\\s*")),
                table.out());
    }
}
