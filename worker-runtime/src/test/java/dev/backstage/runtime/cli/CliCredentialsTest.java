package dev.backstage.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.backstage.testsupport.UniqueNames;
import java.io.IOException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Broker URLs in hostile shapes given to the CLI: refused with one line that says what to fix, never shown with
 * the password, never silently sent to another broker or user. The RabbitMQ check reads the real broker: the queue
 * the job would have gone to does not exist.
 */
@Tag("broker")
class CliCredentialsTest {
    private static final String SECRET = "Xk42hostile";
    private static final String RABBITMQ =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");

    private static CliRun refused(int exit, String fix, String... args) {
        CliRun run = CliRun.of(args);
        String shown = String.join(" ", args) + " -> " + run.err();
        assertEquals(exit, run.exit(), shown);
        assertEquals(1, run.err().lines().count(), shown);
        assertTrue(run.err().contains(fix), shown);
        assertFalse(run.err().contains(SECRET) || run.out().contains(SECRET), shown);
        return run;
    }

    @Test
    void givenAKafkaUrlWithCredentialsButNoScheme_thenTheCliRefusesItWithoutPrintingThePassword() {
        refused(
                2,
                "kafka://user:password@host:port",
                "inspect",
                "--provider",
                "kafka",
                "--url",
                "user:" + SECRET + "@127.0.0.1:9092");
        refused(2, "%40", "inspect", "--provider", "kafka", "--url", "kafka://user:" + SECRET + "@x@127.0.0.1:9092");
    }

    @Test
    void givenARabbitMqUrlThatCannotBeParsed_thenNothingIsEnqueuedOnTheDefaultBroker() throws Exception {
        String prefix = UniqueNames.prefix("hostile");
        refused(
                2,
                "write them as %40",
                "enqueue",
                "t",
                "{}",
                "--provider",
                "rabbitmq",
                "--prefix",
                prefix,
                "--url",
                "amqp://guest:" + SECRET + "@guest@127.0.0.1:5672");
        refused(
                2,
                "port that is not a number",
                "enqueue",
                "t",
                "{}",
                "--provider",
                "rabbitmq",
                "--prefix",
                prefix,
                "--url",
                "amqp://guest:" + SECRET + "@127.0.0.1:5672x");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RABBITMQ);
        try (Connection connection = factory.newConnection(prefix + "-check")) {
            Channel channel = connection.createChannel();
            assertThrows(
                    IOException.class,
                    () -> channel.queueDeclarePassive(prefix + ".default"),
                    "the job must not reach the local broker under guest");
        }
    }

    @Test
    void givenAnUnreachableBrokerWithAPassword_thenTheFailureLineNamesTheBrokerWithoutThePassword() {
        CliRun run = refused(
                3, "redis at redis://***@127.0.0.1:1", "inspect", "--url", "redis://:" + SECRET + "@127.0.0.1:1");
        assertTrue(run.err().startsWith("error: "), run.err());
    }
}
