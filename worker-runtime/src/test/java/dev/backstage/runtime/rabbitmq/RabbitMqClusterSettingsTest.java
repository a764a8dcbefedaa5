package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cluster options (queueType, deliveryLimit, addresses, several management roots): parsing and refusals. */
class RabbitMqClusterSettingsTest {
    private static RabbitMqSettings parse(Map<String, String> options) {
        return RabbitMqSettings.from(
                new ProviderSettings("rabbitmq", "amqp://u:secret@10.0.0.1:5672", "p", null, options));
    }

    @Test
    void givenNoQueueType_thenQueuesAreClassicAsBefore() {
        assertEquals(QueueType.CLASSIC, parse(Map.of()).queueType());
    }

    @Test
    void givenQueueTypeQuorum_thenWorkQueuesGetTheDeliveryLimitAndTheirDeadLetterTarget() {
        RabbitMqSettings settings = parse(Map.of("queueType", "Quorum", "deliveryLimit", "7"));
        Map<String, Object> args = settings.queueArguments().workQueue("p.q.dead-letter");
        assertEquals("quorum", args.get("x-queue-type"));
        assertEquals(7, args.get("x-delivery-limit"));
        assertEquals("p.q.dead-letter", args.get("x-dead-letter-routing-key"));
        assertEquals("at-least-once", args.get("x-dead-letter-strategy"));
        assertEquals("reject-publish", args.get("x-overflow"));
    }

    @Test
    void givenAnUnknownQueueType_thenTheErrorNamesTheChoices() {
        ConfigurationException e =
                assertThrows(ConfigurationException.class, () -> parse(Map.of("queueType", "stream")));
        assertEquals("rabbitmq option queueType must be classic or quorum, got 'stream'", e.getMessage());
    }

    @Test
    void givenAnAddressWithoutAPort_thenTheErrorShowsTheExpectedForm() {
        ConfigurationException e =
                assertThrows(ConfigurationException.class, () -> parse(Map.of("addresses", "10.0.0.1:5672,10.0.0.2")));
        assertEquals(
                "rabbitmq option addresses needs host:port entries separated by commas (e.g."
                        + " 10.0.0.1:5672,10.0.0.2:5672), got '10.0.0.2'",
                e.getMessage());
    }

    @Test
    void givenAddresses_thenTheManagementApiOfEveryHostIsAskedAndTheTargetHidesTheCredentials() {
        RabbitMqSettings settings = parse(Map.of("addresses", "10.0.0.1:5672,10.0.0.2:5672,10.0.0.3:5672"));
        assertEquals(
                List.of(
                        URI.create("http://10.0.0.1:15672"),
                        URI.create("http://10.0.0.2:15672"),
                        URI.create("http://10.0.0.3:15672")),
                settings.managementUrls());
        assertEquals(
                "amqp://***@10.0.0.1:5672 (nodes 10.0.0.1:5672,10.0.0.2:5672,10.0.0.3:5672)",
                settings.redactedTarget());
    }

    @Test
    void givenSeveralManagementRoots_thenAllAreKeptInOrder() {
        RabbitMqSettings settings = parse(Map.of("managementUrl", "http://a:15681, http://b:15682"));
        assertEquals(List.of(URI.create("http://a:15681"), URI.create("http://b:15682")), settings.managementUrls());
    }
}
