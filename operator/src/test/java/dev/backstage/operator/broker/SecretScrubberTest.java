package dev.backstage.operator.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class SecretScrubberTest {
    @Test
    void givenAUrlWithCredentials_thenTheUrlItsUserInfoAndItsPasswordAreMasked() {
        SecretScrubber scrubber = SecretScrubber.forUrls("amqp://app:p%40ss-word@rabbit:5672/vhost");
        String text = scrubber.scrub("connecting to amqp://app:p%40ss-word@rabbit:5672/vhost failed;"
                + " auth p@ss-word rejected for app:p%40ss-word");
        assertFalse(text.contains("ss-word"), text);
        assertEquals("connecting to *** failed; auth *** rejected for ***", text);
    }

    @Test
    void givenUserInfoInSomeOtherUrl_thenItIsMaskedToo() {
        assertEquals(
                "redis://***@10.0.0.1:6379 refused",
                SecretScrubber.none().scrub("redis://default:hunter2@10.0.0.1:6379 refused"));
    }

    @Test
    void givenAKafkaBootstrapList_thenTheListIsMaskedAndPlainTextIsLeftAlone() {
        SecretScrubber scrubber = SecretScrubber.forUrls("kafka-0:9092,kafka-1:9092");
        assertEquals("bootstrap *** timed out", scrubber.scrub("bootstrap kafka-0:9092,kafka-1:9092 timed out"));
        assertEquals("Connection refused", scrubber.scrub("Connection refused"));
    }
}
